import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcError, type RpcClient } from '../../../lib/client/rpcClient';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';

async function codeOf(call: Promise<unknown>): Promise<string> {
  const outcome = await call.then(
    () => 'answered',
    (error: unknown) => (error instanceof RpcError ? error.code : 'thrown'),
  );
  return outcome;
}

/**
 * SEC-7: what is opened is checked before a byte is read. A FIFO in a project (no writer) must be
 * refused, not waited on: a blocking open would freeze the whole runtime for every device.
 */
describe('SEC-7 a FIFO in a project is refused, never waited on', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let project: string;

  beforeAll(async () => {
    dirs = makeRuntimeDirs(1);
    project = dirs.projectDirs[0]!;
    fs.mkdirSync(path.join(project, 'pipes'));
    execFileSync('mkfifo', [path.join(project, 'pipes', 'fifo.txt')]);
    fs.writeFileSync(path.join(project, 'pipes', 'plain.txt'), 'plain\n');
    fs.writeFileSync(path.join(project, 'index.html'), '<!doctype html><title>pipes</title>');
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });
    client = await runtime.connect();
  });
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    dirs?.remove();
  });

  it('SEC-7 files.readContent and files.readBinary of a FIFO are not_found', async () => {
    const where = { projectDirectory: project, path: 'pipes/fifo.txt' };
    expect(await codeOf(client.call('files.readContent', where))).toBe('not_found');
    expect(await codeOf(client.call('files.readBinary', { ...where, offset: 0 }))).toBe('not_found');
    // The runtime still answers everything else.
    expect((await client.call('files.readContent', { projectDirectory: project, path: 'pipes/plain.txt' })).text).toBe(
      'plain\n',
    );
  });

  it('SEC-7 files.list leaves a FIFO out', async () => {
    const { entries } = await client.call('files.list', { projectDirectory: project, path: 'pipes' });
    expect(entries.map((e) => e.name)).toEqual(['plain.txt']);
  });

  it('SEC-7 a preview resource that is a FIFO is a 404', async () => {
    const previewId = crypto.randomBytes(16).toString('hex');
    await client.call('preview.open', { previewId, projectDirectory: project, path: 'index.html' });
    expect(
      await client.call('files.readHtmlPreviewResource', { previewId, path: '/pipes/fifo.txt', offset: 0 }),
    ).toEqual({ status: 404 });
  });
});
