import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { PROTOCOL_VERSION, MAX_COMMAND_OUTPUT_RANGE_BYTES } from '../../../lib/protocol/version';
import { RawRpcSocket, resultOf } from '../../fixtures/rawSocket';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { startRuntimeProcess, TEST_TOKEN, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { isCommandRow, readWholeOutput, runShell, waitForCommand } from '../../fixtures/sessionHelpers';
import { expectRpcError } from '../../fixtures/rpcErrors';

/** Checks that each params object is refused with invalid_params, on a socket that keeps serving. */
async function expectInvalidParams(raw: RawRpcSocket, method: string, cases: unknown[]): Promise<void> {
  for (const params of cases) {
    const error = await raw.requestError(method, params);
    expect(error, `${method} ${JSON.stringify(params)?.slice(0, 200)}`).toMatchObject({
      code: -32602,
      data: { code: 'invalid_params' },
    });
    expect(error.message).toContain(method);
  }
  expect(raw.isClosed).toBe(false);
}

const outputFiles = (runtime: RuntimeProcess) =>
  fs.readdirSync(path.join(runtime.dataDir, 'command-outputs')).filter((f) => f.endsWith('.output'));

describe('protocol v1 methods over a real WebSocket', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let raw: RawRpcSocket;
  let projectA: { id: string; name: string; directory: string };
  let projectB: { id: string; name: string; directory: string };
  let sessionId: string;

  beforeAll(async () => {
    dirs = makeRuntimeDirs(2);
    // No agent installed: an empty agent package cache, and none named by the environment.
    const noAgents = {
      HBCODE_AGENT_CACHE: path.join(dirs.dataDir, 'no-agent-packages'),
      HBCODE_CODEX_BIN: '',
      HBCODE_CLAUDE_BIN: '',
    };
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs, env: noAgents });
    client = await runtime.connect();
    raw = await RawRpcSocket.authenticated(runtime);
    const { projects } = await client.call('projects.list');
    projectA = projects.find((p) => p.directory === dirs.projectDirs[0])!;
    projectB = projects.find((p) => p.directory === dirs.projectDirs[1])!;
    sessionId = (await client.call('sessions.create', { projectId: projectA.id, agent: 'shell', title: 'methods' }))
      .session.id;
  });
  afterAll(async () => {
    client?.close();
    raw?.close();
    await runtime?.stop();
    dirs?.remove();
  });

  /** Pairs a new device through pair.create + pair.redeem on a fresh, unauthenticated socket. */
  async function pairDevice(deviceName: string): Promise<{ token: string; deviceId: string }> {
    const { code } = await client.call('pair.create');
    const fresh = runtime.openSocket();
    await fresh.opened;
    const paired = await fresh.call('pair.redeem', { code, deviceName });
    fresh.close();
    return paired;
  }

  describe('auth.hello', () => {
    it('RPC-2 auth.hello with HBCODE_TOKEN answers the protocol and server versions', async () => {
      const socket = runtime.openSocket();
      await socket.opened;
      const hello = await socket.call('auth.hello', { token: TEST_TOKEN, protocolVersion: PROTOCOL_VERSION });
      expect(hello).toEqual({
        protocolVersion: PROTOCOL_VERSION,
        serverVersion: expect.stringMatching(/^\d+\.\d+\.\d+/),
        deviceId: null,
      });
      expect((await socket.call('projects.list')).projects).toHaveLength(2);
      socket.close();
    });

    it('RPC-1 auth.hello with another protocol version is invalid_params naming both versions', async () => {
      const socket = runtime.openSocket();
      await socket.opened;
      const error = await expectRpcError(
        socket.call('auth.hello', { token: TEST_TOKEN, protocolVersion: PROTOCOL_VERSION + 1 }),
        'invalid_params',
      );
      expect(error.message).toContain(`version ${PROTOCOL_VERSION + 1}`);
      expect(error.message).toContain(`version ${PROTOCOL_VERSION}`);
      expect(error.data).toMatchObject({
        clientProtocolVersion: PROTOCOL_VERSION + 1,
        serverProtocolVersion: PROTOCOL_VERSION,
      });
      socket.close();
    });

    it('RPC-3 auth.hello with bad params is invalid_params', async () => {
      const socket = await RawRpcSocket.open(runtime);
      await expectInvalidParams(socket, 'auth.hello', [
        undefined,
        {},
        { token: TEST_TOKEN },
        { protocolVersion: PROTOCOL_VERSION },
        { token: '', protocolVersion: PROTOCOL_VERSION },
        { token: TEST_TOKEN, protocolVersion: '1' },
        { token: TEST_TOKEN, protocolVersion: 1.5 },
        { token: TEST_TOKEN, protocolVersion: PROTOCOL_VERSION, deviceName: 'extra field' },
        { token: 'x'.repeat(513), protocolVersion: PROTOCOL_VERSION },
      ]);
      socket.close();
    });

    it('RPC-2 auth.hello with a wrong token is unauthorized', async () => {
      const socket = runtime.openSocket();
      await socket.opened;
      await expectRpcError(
        socket.call('auth.hello', { token: TEST_TOKEN + 'x', protocolVersion: PROTOCOL_VERSION }),
        'unauthorized',
      );
      expect((await socket.closed).code).toBe(4401);
    });
  });

  describe('pair.create and pair.redeem', () => {
    it('RPC-2 pair.create answers a short code, its expiry and a pairing link on the app origin', async () => {
      const before = Date.now();
      const created = await client.call('pair.create');
      expect(created.code).toMatch(/^[0-9A-Z]{5}-[0-9A-Z]{5}$/);
      expect(created.expiresAt).toBeGreaterThan(before + 5 * 60_000);
      expect(created.expiresAt).toBeLessThanOrEqual(Date.now() + 60 * 60_000);
      expect(created.url).toBe(`${runtime.appOrigin}/pair#code=${encodeURIComponent(created.code)}`);
    });

    it('RPC-3 pair.create with params is invalid_params', async () => {
      await expectInvalidParams(raw, 'pair.create', [{ deviceName: 'x' }, [], 'code']);
    });

    it('RPC-2 pair.redeem turns a code into a device token that auth.hello accepts', async () => {
      const { code } = await client.call('pair.create');
      const fresh = runtime.openSocket();
      await fresh.opened;
      const paired = await fresh.call('pair.redeem', { code, deviceName: 'Phone' });
      expect(paired.token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
      expect(paired.deviceId).toMatch(/^[0-9a-f-]{36}$/);
      // pair.redeem does not authenticate the socket it was called on.
      await expectRpcError(fresh.call('projects.list'), 'unauthorized');
      const device = await runtime.connect(paired.token);
      expect((await device.call('projects.list')).projects).toHaveLength(2);
      device.close();
    });

    it('SEC-1 a pairing code is accepted typed in lower case and without its dash', async () => {
      const { code } = await client.call('pair.create');
      const fresh = runtime.openSocket();
      await fresh.opened;
      const paired = await fresh.call('pair.redeem', {
        code: code.replace('-', '').toLowerCase(),
        deviceName: 'Typed by hand',
      });
      expect(paired.deviceId).toBeTruthy();
      fresh.close();
    });

    it('RPC-3 pair.redeem with bad params is invalid_params', async () => {
      const socket = await RawRpcSocket.open(runtime);
      await expectInvalidParams(socket, 'pair.redeem', [
        undefined,
        { code: 'AAAAA-AAAAA' },
        { code: '', deviceName: 'Phone' },
        { code: 'AAAAA-AAAAA', deviceName: '   ' },
        { code: 'AAAAA-AAAAA', deviceName: 'x'.repeat(101) },
        { code: 'A'.repeat(65), deviceName: 'Phone' },
        { code: 'AAAAA-AAAAA', deviceName: 'Phone', token: 'extra field' },
      ]);
      socket.close();
    });

    it('RPC-2 pair.redeem with a wrong code is unauthorized', async () => {
      const fresh = runtime.openSocket();
      await fresh.opened;
      await expectRpcError(fresh.call('pair.redeem', { code: 'ZZZZZ-ZZZZZ', deviceName: 'Phone' }), 'unauthorized');
      fresh.close();
    });
  });

  describe('devices.list and devices.revoke', () => {
    it('RPC-2 devices.list lists paired devices and marks the caller as current', async () => {
      const paired = await pairDevice('Tablet');
      const fromScript = await client.call('devices.list');
      const listed = fromScript.devices.find((d) => d.id === paired.deviceId);
      expect(listed).toMatchObject({ name: 'Tablet', current: false });
      expect(fromScript.devices.every((d) => !d.current)).toBe(true);
      const device = await runtime.connect(paired.token);
      const fromDevice = await device.call('devices.list');
      expect(fromDevice.devices.filter((d) => d.current).map((d) => d.id)).toEqual([paired.deviceId]);
      expect(fromDevice.devices.find((d) => d.id === paired.deviceId)!.lastSeenAt).toBeGreaterThanOrEqual(
        listed!.createdAt,
      );
      device.close();
    });

    it('RPC-3 devices.list with params is invalid_params', async () => {
      await expectInvalidParams(raw, 'devices.list', [{ all: true }, 1]);
    });

    it('RPC-2 devices.revoke removes a device from the list', async () => {
      const paired = await pairDevice('Old laptop');
      expect(await client.call('devices.revoke', { deviceId: paired.deviceId })).toEqual({});
      expect((await client.call('devices.list')).devices.map((d) => d.id)).not.toContain(paired.deviceId);
      // A revoked device is gone: revoking it again finds nothing.
      await expectRpcError(client.call('devices.revoke', { deviceId: paired.deviceId }), 'not_found');
    });

    it('RPC-3 devices.revoke of an unknown device is not_found', async () => {
      const error = await expectRpcError(client.call('devices.revoke', { deviceId: crypto.randomUUID() }), 'not_found');
      expect(error.message).toMatch(/device/i);
    });

    it('RPC-3 devices.revoke with bad params is invalid_params', async () => {
      await expectInvalidParams(raw, 'devices.revoke', [
        undefined,
        {},
        { deviceId: '' },
        { deviceId: 7 },
        { deviceId: 'x'.repeat(201) },
        { deviceId: 'a', all: true },
      ]);
    });
  });

  describe('projects.list', () => {
    it('SES-1 projects.list answers the folders the runtime was started with, canonical', async () => {
      const { projects } = await client.call('projects.list');
      expect(projects.map((p) => p.directory)).toEqual(dirs.projectDirs);
      expect(projects.map((p) => p.name)).toEqual(dirs.projectDirs.map((d) => path.basename(d)));
      expect(new Set(projects.map((p) => p.id)).size).toBe(2);
    });

    it('RPC-3 projects.list with params is invalid_params', async () => {
      await expectInvalidParams(raw, 'projects.list', [{ projectId: projectA.id }, null]);
    });
  });

  describe('sessions.create and sessions.list', () => {
    it('SES-1 sessions.create makes a shell session in a project, titled or with a default title', async () => {
      const before = Date.now();
      const { session } = await client.call('sessions.create', {
        projectId: projectA.id,
        agent: 'shell',
        title: '  Build the site  ',
      });
      expect(session).toEqual({
        id: expect.any(String),
        projectId: projectA.id,
        agent: 'shell',
        title: 'Build the site',
        createdAt: expect.any(Number),
      });
      expect(session.createdAt).toBeGreaterThanOrEqual(before);
      expect(session.createdAt).toBeLessThanOrEqual(Date.now());
      const untitled = await client.call('sessions.create', { projectId: projectA.id, agent: 'shell' });
      expect(untitled.session.title).toBe('New shell session');
      expect(untitled.session.id).not.toBe(session.id);
      expect((await client.call('sessions.timeline', { sessionId: session.id })).rows).toEqual([]);
    });

    it('SES-1 sessions.create in an unknown project is not_found', async () => {
      await expectRpcError(
        client.call('sessions.create', { projectId: crypto.randomUUID(), agent: 'shell' }),
        'not_found',
      );
    });

    it('SES-2 sessions.create with the codex or claude agent is unavailable while those agents are not installed, and creates nothing', async () => {
      const { agents } = await client.call('agents.list');
      expect(agents.map((a) => [a.agent, a.available])).toEqual([
        ['shell', true],
        ['codex', false],
        ['claude', false],
        ['terminal', true],
      ]);
      const before = (await client.call('sessions.list')).sessions.length;
      for (const agent of ['codex', 'claude'] as const) {
        const error = await expectRpcError(
          client.call('sessions.create', { projectId: projectA.id, agent }),
          'unavailable',
        );
        expect(error.message).toContain(agent);
        expect(error.data).toMatchObject({ agent });
      }
      expect((await client.call('sessions.list')).sessions).toHaveLength(before);
    });

    it('RPC-3 sessions.create with bad params is invalid_params', async () => {
      await expectInvalidParams(raw, 'sessions.create', [
        undefined,
        { projectId: projectA.id },
        { agent: 'shell' },
        { projectId: projectA.id, agent: 'bash' },
        { projectId: '', agent: 'shell' },
        { projectId: projectA.id, agent: 'shell', title: 'x'.repeat(201) },
        { projectId: projectA.id, agent: 'shell', title: 5 },
        { projectId: projectA.id, agent: 'shell', model: 'extra field' },
      ]);
    });

    it("SES-1 sessions.list answers every session, or one project's with projectId", async () => {
      const inA = (await client.call('sessions.create', { projectId: projectA.id, agent: 'shell', title: 'in A' }))
        .session;
      const inB = (await client.call('sessions.create', { projectId: projectB.id, agent: 'shell', title: 'in B' }))
        .session;
      const all = (await client.call('sessions.list')).sessions;
      expect(all.map((s) => s.id)).toEqual(expect.arrayContaining([inA.id, inB.id]));
      expect(all.find((s) => s.id === inA.id)).toMatchObject(inA);
      expect((await client.call('sessions.list', {})).sessions).toEqual(all);
      const ofA = (await client.call('sessions.list', { projectId: projectA.id })).sessions;
      const ofB = (await client.call('sessions.list', { projectId: projectB.id })).sessions;
      // A listed session also carries its last activity (UX-3): compare what create answered.
      expect(ofA.find((s) => s.id === inA.id)).toMatchObject(inA);
      expect(ofA.every((s) => s.projectId === projectA.id)).toBe(true);
      expect(ofB).toHaveLength(1);
      expect(ofB[0]).toMatchObject(inB);
      expect(ofA.length + ofB.length).toBe(all.length);
      // Latest activity first (UX-3); a session with no activity yet counts from its creation.
      const activeAt = (s: (typeof all)[number]) => s.lastActivityAt ?? s.createdAt;
      for (let i = 1; i < all.length; i++) expect(activeAt(all[i]!)).toBeLessThanOrEqual(activeAt(all[i - 1]!));
    });

    it('RPC-3 sessions.list with bad params is invalid_params', async () => {
      await expectInvalidParams(raw, 'sessions.list', [
        { projectId: '' },
        { projectId: 3 },
        { projectId: projectA.id, agent: 'shell' },
      ]);
    });
  });

  describe('sessions.timeline', () => {
    it('SES-3 sessions.timeline answers a message row, then its command row with sizes and never bytes', async () => {
      const operationId = crypto.randomUUID();
      const { runId } = await client.call('chat.send', { sessionId, operationId, text: 'echo timeline-check' });
      const row = await waitForCommand(client, sessionId, runId);
      const { rows } = await client.call('sessions.timeline', { sessionId });
      const index = rows.findIndex((r) => r.kind === 'message' && r.runId === runId);
      expect(rows[index]).toMatchObject({
        kind: 'message',
        sessionId,
        operationId,
        runId,
        text: 'echo timeline-check',
        state: 'done',
      });
      expect(rows[index + 1]).toEqual(row);
      expect(row).toMatchObject({
        kind: 'command',
        sessionId,
        runId,
        command: 'echo timeline-check',
        status: 'exited',
        exitCode: 0,
        byteLength: 'timeline-check\n'.length,
        generation: 1,
        complete: true,
        sourceIncomplete: false,
      });
      expect(row.error).toBeUndefined();
      expect(JSON.stringify(rows)).not.toContain('timeline-check\\n');
    });

    it('SES-3 sessions.timeline of an unknown session is not_found', async () => {
      await expectRpcError(client.call('sessions.timeline', { sessionId: crypto.randomUUID() }), 'not_found');
    });

    it('RPC-3 sessions.timeline with bad params is invalid_params', async () => {
      await expectInvalidParams(raw, 'sessions.timeline', [
        undefined,
        {},
        { sessionId: '' },
        { sessionId: sessionId, since: 0 },
      ]);
    });
  });

  describe('sessions.delete', () => {
    it('STO-4 sessions.delete removes a session from the list and its timeline', async () => {
      const { session } = await client.call('sessions.create', {
        projectId: projectB.id,
        agent: 'shell',
        title: 'doomed',
      });
      expect(await client.call('sessions.delete', { sessionId: session.id })).toEqual({});
      expect((await client.call('sessions.list')).sessions.map((s) => s.id)).not.toContain(session.id);
      await expectRpcError(client.call('sessions.timeline', { sessionId: session.id }), 'not_found');
      await expectRpcError(client.call('sessions.delete', { sessionId: session.id }), 'not_found');
    });

    it('STO-4 sessions.delete of an unknown session is not_found', async () => {
      await expectRpcError(client.call('sessions.delete', { sessionId: crypto.randomUUID() }), 'not_found');
    });

    it('RPC-3 sessions.delete with bad params is invalid_params', async () => {
      await expectInvalidParams(raw, 'sessions.delete', [
        undefined,
        {},
        { sessionId: '' },
        { sessionId: sessionId, force: true },
      ]);
    });
  });

  describe('chat.send', () => {
    it('SES-2 chat.send answers the operation, its run and queued, and the shell runs the text', async () => {
      const operationId = crypto.randomUUID();
      const answer = await client.call('chat.send', { sessionId, operationId, text: 'printf chat-send-ok' });
      expect(answer).toEqual({
        operationId,
        runId: expect.any(String),
        state: expect.stringMatching(/^(queued|running)$/),
      });
      const row = await waitForCommand(client, sessionId, answer.runId);
      expect((await readWholeOutput(client, sessionId, row)).toString()).toBe('chat-send-ok');
    });

    it('STO-2 chat.send with a used operation id and another text is a conflict', async () => {
      const operationId = crypto.randomUUID();
      await client.call('chat.send', { sessionId, operationId, text: 'true' });
      const error = await expectRpcError(
        client.call('chat.send', { sessionId, operationId, text: 'false' }),
        'conflict',
      );
      expect(error.data).toMatchObject({ operationId });
    });

    it('STO-2 chat.send to an unknown session is not_found', async () => {
      await expectRpcError(
        client.call('chat.send', { sessionId: crypto.randomUUID(), operationId: crypto.randomUUID(), text: 'true' }),
        'not_found',
      );
    });

    it('RPC-3 chat.send with bad params is invalid_params', async () => {
      const operationId = crypto.randomUUID();
      await expectInvalidParams(raw, 'chat.send', [
        undefined,
        { sessionId, operationId },
        { sessionId, operationId, text: '' },
        { sessionId, operationId, text: 'x'.repeat(1024 * 1024 + 1) },
        { sessionId, operationId: '', text: 'true' },
        { sessionId: '', operationId, text: 'true' },
        { sessionId, operationId, text: 42 },
        { sessionId, operationId, text: 'true', agent: 'shell' },
      ]);
      // None of them was accepted.
      const { rows } = await client.call('sessions.timeline', { sessionId });
      expect(rows.some((r) => r.kind === 'message' && r.operationId === operationId)).toBe(false);
    });

    it('RPC-3 chat.send in a frame over 32 MiB is too_large', async () => {
      const error = await expectRpcError(
        client.call('chat.send', { sessionId, operationId: crypto.randomUUID(), text: 'x'.repeat(33 * 1024 * 1024) }),
        'too_large',
      );
      expect(error.data).toMatchObject({ limit: 32 * 1024 * 1024 });
      expect((await client.call('projects.list')).projects).toHaveLength(2);
    });
  });

  describe('run.cancel', () => {
    it('SES-5 run.cancel stops a running command', async () => {
      const { runId } = await client.call('chat.send', {
        sessionId,
        operationId: crypto.randomUUID(),
        text: 'echo go; sleep 30',
      });
      await waitForCommand(client, sessionId, runId, (r) => r.status === 'running' && r.byteLength === 3);
      expect(await client.call('run.cancel', { sessionId, runId })).toEqual({});
      const row = await waitForCommand(client, sessionId, runId);
      expect(row).toMatchObject({ status: 'cancelled', complete: true, byteLength: 3 });
      // Cancelling a finished run changes nothing.
      expect(await client.call('run.cancel', { sessionId, runId })).toEqual({});
    });

    it('SES-5 run.cancel of a message queued behind a running one drops it before it runs', async () => {
      const marker = path.join(projectA.directory, 'cancelled-queued.txt');
      const first = await client.call('chat.send', { sessionId, operationId: crypto.randomUUID(), text: 'sleep 0.5' });
      const queued = await client.call('chat.send', {
        sessionId,
        operationId: crypto.randomUUID(),
        text: `echo ran > ${marker}`,
      });
      expect(await client.call('run.cancel', { sessionId, runId: queued.runId })).toEqual({});
      await waitForCommand(client, sessionId, first.runId);
      const { rows } = await client.call('sessions.timeline', { sessionId });
      expect(rows.find((r) => r.kind === 'message' && r.runId === queued.runId)).toMatchObject({ state: 'cancelled' });
      expect(rows.filter(isCommandRow).some((r) => r.runId === queued.runId)).toBe(false);
      expect(fs.existsSync(marker)).toBe(false);
    });

    it("SES-5 run.cancel of an unknown run, or of another session's run, is not_found", async () => {
      await expectRpcError(client.call('run.cancel', { sessionId, runId: crypto.randomUUID() }), 'not_found');
      const other = (await client.call('sessions.create', { projectId: projectA.id, agent: 'shell' })).session.id;
      const { runId } = await client.call('chat.send', {
        sessionId: other,
        operationId: crypto.randomUUID(),
        text: 'true',
      });
      await expectRpcError(client.call('run.cancel', { sessionId, runId }), 'not_found');
      await expectRpcError(client.call('run.cancel', { sessionId: crypto.randomUUID(), runId }), 'not_found');
    });

    it('RPC-3 run.cancel with bad params is invalid_params', async () => {
      await expectInvalidParams(raw, 'run.cancel', [
        undefined,
        { sessionId },
        { runId: 'r' },
        { sessionId, runId: '' },
        { sessionId, runId: 'r', reason: 'x' },
      ]);
    });
  });

  describe('run.chatCommandOutputRead', () => {
    let row: Awaited<ReturnType<typeof runShell>>;
    const read = (
      params: Partial<{
        appSessionId: string;
        runId: string;
        commandId: string;
        generation: number;
        offset: number;
        length: number;
      }>,
    ) =>
      client.call('run.chatCommandOutputRead', {
        appSessionId: sessionId,
        runId: row.runId,
        commandId: row.commandId,
        generation: row.generation,
        offset: 0,
        length: MAX_COMMAND_OUTPUT_RANGE_BYTES,
        ...params,
      });

    beforeAll(async () => {
      row = await runShell(client, sessionId, 'printf abcdefghij');
    });

    it('OUT-5 run.chatCommandOutputRead answers the requested range with the artifact state', async () => {
      expect(row).toMatchObject({ byteLength: 10, generation: 1, complete: true });
      const page = await read({ offset: 3, length: 4 });
      expect(page).toEqual({
        offset: 3,
        dataBase64: Buffer.from('defg').toString('base64'),
        byteCount: 4,
        availableBytes: 10,
        generation: 1,
        complete: true,
        sourceIncomplete: false,
      });
      expect(await read({ offset: 8 })).toMatchObject({
        offset: 8,
        dataBase64: Buffer.from('ij').toString('base64'),
        byteCount: 2,
        availableBytes: 10,
      });
      expect(await read({ offset: 10, length: 1 })).toMatchObject({
        offset: 10,
        dataBase64: '',
        byteCount: 0,
        availableBytes: 10,
      });
    });

    it('OUT-5 run.chatCommandOutputRead serves exactly 256 KiB at most per request', async () => {
      const big = await runShell(client, sessionId, `head -c ${MAX_COMMAND_OUTPUT_RANGE_BYTES + 100} /dev/zero`);
      expect(big.byteLength).toBe(MAX_COMMAND_OUTPUT_RANGE_BYTES + 100);
      const page = await client.call('run.chatCommandOutputRead', {
        appSessionId: sessionId,
        runId: big.runId,
        commandId: big.commandId,
        generation: big.generation,
        offset: 0,
        length: MAX_COMMAND_OUTPUT_RANGE_BYTES,
      });
      expect(page.byteCount).toBe(MAX_COMMAND_OUTPUT_RANGE_BYTES);
      expect(Buffer.from(page.dataBase64, 'base64').equals(Buffer.alloc(MAX_COMMAND_OUTPUT_RANGE_BYTES))).toBe(true);
    });

    it('OUT-5 run.chatCommandOutputRead with a length of 0 or over 262144, or other bad params, is invalid_params', async () => {
      const valid = {
        appSessionId: sessionId,
        runId: row.runId,
        commandId: row.commandId,
        generation: row.generation,
        offset: 0,
        length: 1,
      };
      await expectInvalidParams(raw, 'run.chatCommandOutputRead', [
        { ...valid, length: 0 },
        { ...valid, length: MAX_COMMAND_OUTPUT_RANGE_BYTES + 1 },
        { ...valid, length: -1 },
        { ...valid, length: 1.5 },
        { ...valid, offset: -1 },
        { ...valid, generation: 0 },
        { ...valid, appSessionId: '' },
        { ...valid, commandId: undefined },
        { ...valid, sessionId: sessionId },
        undefined,
      ]);
      expect(
        resultOf(await raw.request('run.chatCommandOutputRead', { ...valid, length: MAX_COMMAND_OUTPUT_RANGE_BYTES })),
      ).toMatchObject({ byteCount: 10 });
    });

    it('OUT-5 run.chatCommandOutputRead past the end of the output is invalid_params with the available bytes', async () => {
      const error = await expectRpcError(read({ offset: 11, length: 1 }), 'invalid_params');
      expect(error.data).toMatchObject({ availableBytes: 10 });
    });

    it('OUT-5 run.chatCommandOutputRead of an unknown run or command is not_found', async () => {
      await expectRpcError(read({ runId: crypto.randomUUID() }), 'not_found');
      await expectRpcError(read({ commandId: '2' }), 'not_found');
    });

    it('OUT-5 run.chatCommandOutputRead with another session as appSessionId is a conflict', async () => {
      const other = (await client.call('sessions.create', { projectId: projectA.id, agent: 'shell' })).session.id;
      const error = await expectRpcError(read({ appSessionId: other }), 'conflict');
      expect(error.message).toMatch(/session/);
      await expectRpcError(read({ appSessionId: crypto.randomUUID() }), 'conflict');
    });

    it('OUT-5 run.chatCommandOutputRead against a generation the artifact does not hold is a conflict', async () => {
      const error = await expectRpcError(read({ generation: row.generation + 1 }), 'conflict');
      expect(error.data).toMatchObject({ generation: row.generation });
    });

    it('OUT-5 a stale generation is a conflict: output whose file was lost mid-command is replaced by the aggregate as generation 2 (OUT-3)', async () => {
      const before = new Set(outputFiles(runtime));
      const { runId } = await client.call('chat.send', {
        sessionId,
        operationId: crypto.randomUUID(),
        text: 'printf first; sleep 1; printf second',
      });
      const firstPart = await waitForCommand(client, sessionId, runId, (r) => r.byteLength === 5);
      expect(firstPart).toMatchObject({ status: 'running', generation: 1 });
      const added = outputFiles(runtime).filter((f) => !before.has(f));
      expect(added).toHaveLength(1);
      fs.rmSync(path.join(runtime.dataDir, 'command-outputs', added[0]!));

      const settled = await waitForCommand(client, sessionId, runId);
      expect(settled).toMatchObject({
        status: 'exited',
        exitCode: 0,
        generation: 2,
        byteLength: 11,
        complete: true,
        sourceIncomplete: false,
      });
      const readGeneration = (generation: number) =>
        client.call('run.chatCommandOutputRead', {
          appSessionId: sessionId,
          runId,
          commandId: settled.commandId,
          generation,
          offset: 0,
          length: 100,
        });
      const error = await expectRpcError(readGeneration(1), 'conflict');
      expect(error.data).toMatchObject({ generation: 2 });
      expect(error.message).toMatch(/refresh/i);
      const page = await readGeneration(2);
      expect(Buffer.from(page.dataBase64, 'base64').toString()).toBe('firstsecond');
    });

    it('OUT-2 run.chatCommandOutputRead of an output whose file is gone is a storage error, and the row says so', async () => {
      const before = new Set(outputFiles(runtime));
      const lost = await runShell(client, sessionId, 'printf will-be-lost');
      const added = outputFiles(runtime).filter((f) => !before.has(f));
      expect(added).toHaveLength(1);
      fs.rmSync(path.join(runtime.dataDir, 'command-outputs', added[0]!));
      const params = {
        appSessionId: sessionId,
        runId: lost.runId,
        commandId: lost.commandId,
        generation: lost.generation,
        offset: 0,
        length: 10,
      };
      await expectRpcError(client.call('run.chatCommandOutputRead', params), 'storage');
      await expectRpcError(client.call('run.chatCommandOutputRead', params), 'storage');
      const { rows } = await client.call('sessions.timeline', { sessionId });
      expect(rows.filter(isCommandRow).find((r) => r.runId === lost.runId)!.error).toMatch(/could not store/);
      // Other outputs still read.
      expect((await read({ length: 10 })).byteCount).toBe(10);
    });
  });
});
