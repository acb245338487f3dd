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

export function installAgentPackages() {
  const dir = agentPackagesDir();
  const stamp = path.join(dir, 'installed.stamp');
  if (fs.existsSync(stamp)) return dir;
  const staging = `${dir}.staging-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  for (const name of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(source, name), path.join(staging, name));
  const started = Date.now();
  // NOTE: --ignore-scripts: both packages ship their binaries inside platform packages; nothing needs a build step.
  execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: staging, stdio: ['ignore', 'inherit', 'inherit'] });
  fs.writeFileSync(path.join(staging, 'installed.stamp'), `${new Date().toISOString()} ${Date.now() - started} ms\n`);
  fs.rmSync(dir, { recursive: true, force: true });
  try {
    fs.renameSync(staging, dir);
  } catch (error) {
    // Another process installed the same lock meanwhile: theirs is as good as ours.
    if (!fs.existsSync(stamp)) throw error;
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = installAgentPackages();
  process.stdout.write(`${dir}\n`);
}
