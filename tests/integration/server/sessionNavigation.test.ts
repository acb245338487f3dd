import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { runShell } from '../../fixtures/sessionHelpers';
import { expectRpcError } from '../../fixtures/rpcErrors';
import { waitUntil } from '../../fixtures/waitUntil';

describe('UX-3 / UX-1 session titles, activity order and command rows over a real WebSocket', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let other: RpcClient;
  let projectId: string;

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });
    client = await runtime.connect();
    other = await runtime.connect();
    projectId = (await client.call('projects.list')).projects[0]!.id;
  });
  afterAll(async () => {
    client?.close();
    other?.close();
    await runtime?.stop();
    dirs?.remove();
  });

  it('UX-3 sessions.rename keeps the new title across a restart and tells other sockets', async () => {
    const { session } = await client.call('sessions.create', { projectId, agent: 'shell', title: 'before' });
    const told: string[] = [];
    const stop = other.onNotification('sessions.changed', (params) => told.push(params.sessionId));
    const renamed = await client.call('sessions.rename', { sessionId: session.id, title: '  Deploy the shop  ' });
    expect(renamed.session).toMatchObject({ id: session.id, title: 'Deploy the shop' });
    await waitUntil(() => told.includes(session.id), 'the other socket hears of the rename');
    stop();
    client.close();
    other.close();
    runtime = await runtime.restart();
    client = await runtime.connect();
    other = await runtime.connect();
    const { sessions } = await client.call('sessions.list');
    expect(sessions.find((s) => s.id === session.id)?.title).toBe('Deploy the shop');
  });

  it('UX-3 sessions.rename refuses an empty title and an unknown session', async () => {
    const { session } = await client.call('sessions.create', { projectId, agent: 'shell' });
    await expectRpcError(client.call('sessions.rename', { sessionId: session.id, title: '   ' }), 'invalid_params');
    await expectRpcError(client.call('sessions.rename', { sessionId: 'no-such-session', title: 'x' }), 'not_found');
  });

  it('UX-3 sessions.list puts the most recently active session first, with its last line', async () => {
    const older = (await client.call('sessions.create', { projectId, agent: 'shell', title: 'older' })).session;
    const newer = (await client.call('sessions.create', { projectId, agent: 'shell', title: 'newer' })).session;
    let { sessions } = await client.call('sessions.list');
    expect(sessions.findIndex((s) => s.id === newer.id)).toBeLessThan(sessions.findIndex((s) => s.id === older.id));
    expect(sessions.find((s) => s.id === newer.id)?.lastActivity).toBeUndefined();

    await runShell(client, older.id, 'echo activity-line');
    ({ sessions } = await client.call('sessions.list'));
    expect(sessions[0]?.id).toBe(older.id);
    expect(sessions[0]?.lastActivity).toBe('$ echo activity-line');
    expect(sessions[0]!.lastActivityAt).toBeGreaterThanOrEqual(newer.createdAt);
    const times = sessions.map((s) => s.lastActivityAt ?? 0);
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('UX-1 sessions.command answers one command row of its own session only', async () => {
    const a = (await client.call('sessions.create', { projectId, agent: 'shell' })).session;
    const b = (await client.call('sessions.create', { projectId, agent: 'shell' })).session;
    const row = await runShell(client, a.id, 'printf abc');
    const { row: found } = await client.call('sessions.command', {
      sessionId: a.id,
      runId: row.runId,
      commandId: row.commandId,
    });
    expect(found).toMatchObject({ id: row.id, byteLength: 3, complete: true, command: 'printf abc' });
    await expectRpcError(
      client.call('sessions.command', { sessionId: b.id, runId: row.runId, commandId: row.commandId }),
      'not_found',
    );
    await expectRpcError(
      client.call('sessions.command', { sessionId: a.id, runId: row.runId, commandId: 'nope' }),
      'not_found',
    );
  });
});
