import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { BuildInfoSchema, buildDigest, type BuildInfo } from '../../lib/protocol/buildDigest';

/** What RLY-5's tests do to an app build, as a relay serving it could, and ask of the page's worker. */

export const sha256 = (bytes: Buffer | string) => crypto.createHash('sha256').update(bytes).digest('hex');
export const readBuild = (outDir: string): BuildInfo => BuildInfoSchema.parse(JSON.parse(fs.readFileSync(path.join(outDir, '.build.json'), 'utf8')));

/** A code file of the first screen (precached), named by the built index page. */
export function shellScript(outDir: string): string {
  const html = fs.readFileSync(path.join(outDir, 'index.html'), 'utf8');
  const found = /\/_next\/static\/chunks\/[A-Za-z0-9_.~-]+\.js/.exec(html);
  if (!found) throw new Error('no script in index.html');
  return found[0];
}

/**
 * Build A with one file changed to `bytes`, as a relay would make it to slip in changed code:
 * the worker's list points at the new bytes (the worker computes its digest from that list).
 * `served`: other bytes to serve for the file than the list names. Returns the new list's digest.
 */
export async function serveChanged(outDir: string, buildA: BuildInfo, workerA: string, file: string, bytes: Buffer, served = bytes): Promise<string> {
  const entry = `"${file}":"${buildA.files[file]}"`;
  expect(workerA).toContain(entry);
  fs.writeFileSync(path.join(outDir, file), served);
  fs.writeFileSync(path.join(outDir, 'sw.js'), workerA.replace(entry, `"${file}":"${sha256(bytes)}"`));
  return buildDigest({ ...buildA.files, [file]: sha256(bytes) });
}

/** Asks the registration for an update and waits for the new worker to end up installed or redundant. */
export function updateAndSettle(page: Page): Promise<string | null> {
  return page.evaluate(async () => {
    const registration = (await navigator.serviceWorker.getRegistration())!;
    const found = new Promise<ServiceWorker | null>((resolve) => {
      registration.addEventListener('updatefound', () => resolve(registration.installing), { once: true });
      setTimeout(() => resolve(null), 10_000);
    });
    await registration.update().catch(() => undefined);
    const worker = registration.installing ?? (await found);
    if (!worker) return registration.waiting ? 'installed' : null;
    return new Promise<string>((resolve) => {
      const settled = () => ['installed', 'activated', 'redundant'].includes(worker.state) && resolve(worker.state);
      worker.addEventListener('statechange', settled);
      settled();
    });
  });
}

/** Which build the page's controlling worker says it is. */
export function controllerDigest(page: Page): Promise<string | null> {
  return page.evaluate(
    () =>
      new Promise<string | null>((resolve) => {
        const controller = navigator.serviceWorker.controller;
        if (!controller) return resolve(null);
        const channel = new MessageChannel();
        channel.port1.onmessage = (event) => resolve((event.data as { digest: string }).digest);
        controller.postMessage({ type: 'HBCODE_BUILD_STATUS' }, [channel.port2]);
      }),
  );
}
