import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { createShellSession, runShell } from '../../fixtures/sessionHelpers';

describe('TL-4 shell sessions page their own rows', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let client: RpcClient;

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });
    client = await runtime.connect();
  }, 120_000);
  afterAll(async () => {
    client?.close();
    await runtime?.stopIfRunning();
    dirs?.remove();
  });

  it('TL-4 pages hold whole runs, newest first, back to the first row and forward again', async () => {
    const sessionId = await createShellSession(client);
    for (let n = 0; n < 9; n++) await runShell(client, sessionId, `echo ${n}`);
    const whole = await client.call('sessions.timeline', { sessionId });
    expect(whole.rows).toHaveLength(18);
    expect([whole.older, whole.newer]).toEqual([null, null]);

    let page = await client.call('sessions.timeline', { sessionId, limit: 4 });
    const pages = [page.rows.map((row) => row.id)];
    while (page.older) {
      expect(pages.length).toBeLessThan(10);
      page = await client.call('sessions.timeline', { sessionId, limit: 4, before: page.older });
      pages.unshift(page.rows.map((row) => row.id));
    }
    // Two runs of a message and its command per page; the oldest page has the one left over.
    expect(pages.map((ids) => ids.length)).toEqual([2, 4, 4, 4, 4]);
    expect(pages.flat()).toEqual(whole.rows.map((row) => row.id));
    for (const ids of pages) expect(ids[0]!.startsWith('m:')).toBe(true);

    const forward = [...page.rows.map((row) => row.id)];
    while (page.newer) {
      page = await client.call('sessions.timeline', { sessionId, limit: 4, after: page.newer });
      forward.push(...page.rows.map((row) => row.id));
    }
    expect(forward).toEqual(whole.rows.map((row) => row.id));
  }, 180_000);
});
