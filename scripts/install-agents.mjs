#!/usr/bin/env node
// Installs the real agents (Codex, the Claude Agent SDK) at the exact versions locked in
// scripts/agent-packages/ into a cache folder outside the repository. They ship native binaries
// of about 400 MB each, so they stay out of `npm ci`; tests and CI call this script, which does
// nothing when the cache already holds this lock's install.
//
// Prints the folder that holds node_modules. HBCODE_AGENT_CACHE chooses the cache folder.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const source = path.join(here, 'agent-packages');

export function agentPackagesDir() {
  const lock = fs.readFileSync(path.join(source, 'package-lock.json'));
  const digest = crypto.createHash('sha256').update(lock).digest('hex').slice(0, 16);
  const cache = process.env.HBCODE_AGENT_CACHE || path.join(os.homedir(), '.cache', 'hbcode', 'agent-packages');
  return path.join(cache, digest);
}

/** Installs of the same lock by other processes (parallel test files) wait for the first one. */
const LOCK_WAIT_MS = 20 * 60_000;

function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export function installAgentPackages() {
  const dir = agentPackagesDir();
  const stamp = path.join(dir, 'installed.stamp');
  if (fs.existsSync(stamp)) return dir;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const lock = `${dir}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      if (fs.existsSync(stamp)) return dir;
      // A lock older than the wait is left by an install that died: take it over.
      if (Date.now() > deadline || Date.now() - fs.statSync(lock).mtimeMs > LOCK_WAIT_MS) {
        fs.rmSync(lock, { recursive: true, force: true });
        continue;
      }
      sleepSync(500);
    }
  }
  try {
    if (fs.existsSync(stamp)) return dir;
    const staging = `${dir}.staging`;
    fs.rmSync(staging, { recursive: true, force: true });
    fs.mkdirSync(staging, { recursive: true });
    for (const name of ['package.json', 'package-lock.json'])
      fs.copyFileSync(path.join(source, name), path.join(staging, name));
    const started = Date.now();
    // NOTE: --ignore-scripts: both packages ship their binaries inside platform packages; nothing needs a build step.
    execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], {
      cwd: staging,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    fs.writeFileSync(path.join(staging, 'installed.stamp'), `${new Date().toISOString()} ${Date.now() - started} ms\n`);
    // Whatever is at `dir` without a stamp is an install that died halfway.
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(staging, dir);
    return dir;
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = installAgentPackages();
  process.stdout.write(`${dir}\n`);
}
