import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { methods, UNAUTHENTICATED_METHODS, type MethodName } from '../../../lib/protocol/methods';
import { MAX_FRAME_BYTES, PROTOCOL_VERSION } from '../../../lib/protocol/version';
import { RawRpcSocket, errorOf, resultOf } from '../../fixtures/rawSocket';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { httpGet, startRuntimeProcess, TEST_TOKEN, type RuntimeProcess } from '../../fixtures/runtimeProcess';

/** Params of the right shape for every method, so only authentication can refuse them. */
const WELL_FORMED_PARAMS: Record<MethodName, unknown> = {
  'auth.hello': { token: TEST_TOKEN, protocolVersion: PROTOCOL_VERSION },
  'pair.redeem': { code: 'AAAAA-AAAAA', deviceName: 'Phone' },
  'pair.create': undefined,
  'devices.list': undefined,
  'devices.revoke': { deviceId: 'device' },
  'devices.rename': { deviceId: 'device', name: 'Phone' },
  'devices.confirm': { requestId: 'request', accept: true },
  'push.status': undefined,
  'push.subscribe': {
    subscription: { endpoint: 'https://push.example/abc', keys: { p256dh: 'key', auth: 'auth' } },
    events: { approval: true, turnFinished: false, failed: false },
  },
  'push.unsubscribe': { endpoint: 'https://push.example/abc' },
  'app.build': undefined,
  'projects.list': undefined,
  'sessions.create': { projectId: 'project', agent: 'shell' },
  'sessions.list': undefined,
  'sessions.settings': { sessionId: 'session' },
  'sessions.configure': { sessionId: 'session', settings: {} },
  'agents.models': { agent: 'codex' },
  'agents.commands': { sessionId: 'session' },
  'agents.recentConversations': { projectDirectory: '/nowhere', agent: 'claude' },
  'usage.list': undefined,
  'codex.profiles.list': undefined,
  'codex.profiles.add': { name: 'Work' },
  'codex.profiles.rename': { profileId: 'profile', name: 'Work' },
  'codex.profiles.remove': { profileId: 'profile' },
  'codex.profiles.refresh': { profileId: 'profile' },
  'codex.login.start': { profileId: 'profile', method: 'deviceCode' },
  'codex.logout': { profileId: 'profile' },
  'codex.threads.list': { profileId: 'profile' },
  'codex.rollouts.list': undefined,
  'codex.source.get': { sessionId: 'session' },
  'codex.source.choose': { sessionId: 'session', path: '/codex/sessions/rollout-2026-01-01T00-00-00-x.jsonl' },
  'sessions.timeline': { sessionId: 'session' },
  'sessions.itemText': { sessionId: 'session', itemId: 'item', field: 'text', offset: 0, length: 1 },
  'sessions.delete': { sessionId: 'session' },
  'sessions.rename': { sessionId: 'session', title: 'A title' },
  'sessions.seen': { sessionId: 'session', open: true },
  'sessions.command': { sessionId: 'session', runId: 'run', commandId: 'command' },
  'chat.send': { sessionId: 'session', operationId: 'op', text: 'echo hi' },
  'run.cancel': { sessionId: 'session', runId: 'run' },
  'run.chatCommandOutputRead': {
    appSessionId: 'session',
    runId: 'run',
    commandId: '1',
    generation: 1,
    offset: 0,
    length: 1,
  },
  'run.chatCommandOutputFind': { appSessionId: 'session', runId: 'run', commandId: '1', generation: 1, query: 'x' },
  'run.chatCommandOutputFindCancel': { searchId: 'search' },
  'agents.list': undefined,
  'approvals.list': { sessionId: 'session' },
  'approvals.answer': { sessionId: 'session', approvalId: 'approval', decision: 'accept' },
  'files.list': { projectDirectory: '/project', path: '' },
  'files.readContent': { projectDirectory: '/project', path: 'a.txt' },
  'files.readBinary': { projectDirectory: '/project', path: 'a.bin', offset: 0 },
  'files.readMediaRendition': { projectDirectory: '/project', path: 'a.png', offset: 0, maxWidth: 512, kind: 'webp' },
  'preview.open': { previewId: '0123456789abcdef0123456789abcdef', projectDirectory: '/project', path: 'index.html' },
  'preview.close': { previewId: '0123456789abcdef0123456789abcdef' },
  'files.readHtmlPreviewResource': { previewId: '0123456789abcdef0123456789abcdef', path: '/index.html', offset: 0 },
  'web.fetchPage': { url: 'http://127.0.0.1:9/' },
  'web.fetchImage': { url: 'http://127.0.0.1:9/' },
  'terminal.open': { sessionId: 'session', cols: 80, rows: 24 },
  'terminal.input': { sessionId: 'session', data: 'ls\r' },
  'terminal.resize': { sessionId: 'session', cols: 80, rows: 24 },
  'git.status': { projectDirectory: '/nowhere' },
  'git.diff': { projectDirectory: '/nowhere', path: 'a.txt', staged: false },
  'git.stage': { projectDirectory: '/nowhere', paths: ['a.txt'] },
  'git.unstage': { projectDirectory: '/nowhere', paths: ['a.txt'] },
  'git.commit': { projectDirectory: '/nowhere', message: 'A change' },
  'git.branches': { projectDirectory: '/nowhere' },
  'git.createBranch': { projectDirectory: '/nowhere', name: 'topic' },
  'git.switchBranch': { projectDirectory: '/nowhere', name: 'main' },
  'git.pull': { projectDirectory: '/nowhere' },
  'git.push': { projectDirectory: '/nowhere' },
  'git.abortMerge': { projectDirectory: '/nowhere' },
  'claude.accounts.list': undefined,
  'claude.accounts.add': {},
  'claude.accounts.remove': { accountId: '00000000-0000-4000-8000-000000000000' },
  'claude.accounts.activate': { accountId: 'default' },
  'claude.accounts.setApiKey': { accountId: 'default', apiKey: null },
  'claude.accounts.status': { accountId: 'default' },
  'claude.models.list': {},
  'claude.sessions.list': { projectId: 'project' },
  'attachments.begin': {
    sessionId: 'session',
    name: 'a.png',
    mimeType: 'image/png',
    byteLength: 1,
    sha256: '0'.repeat(64),
  },
  'attachments.chunk': {
    sessionId: 'session',
    uploadId: `u${'0'.repeat(32)}`,
    offset: 0,
    sha256: '0'.repeat(64),
    dataBase64: '',
  },
  'attachments.status': { sessionId: 'session', uploadId: `u${'0'.repeat(32)}` },
  'attachments.read': { sessionId: 'session', uploadId: `u${'0'.repeat(32)}`, offset: 0 },
};

describe('RPC-3 bad frames over a real WebSocket', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let raw: RawRpcSocket;

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });
    raw = await RawRpcSocket.authenticated(runtime);
  });
  afterAll(async () => {
    raw?.close();
    await runtime?.stop();
    dirs?.remove();
  });

  /** The same socket still answers a normal call, and the runtime process is still up and healthy. */
  async function expectStillServing(socket: RawRpcSocket): Promise<void> {
    const projects = resultOf(await socket.request('projects.list')) as { projects: { directory: string }[] };
    expect(projects.projects.map((p) => p.directory)).toEqual(dirs.projectDirs);
    expect(socket.isClosed).toBe(false);
    expect(runtime.child.exitCode).toBeNull();
    expect((await httpGet(runtime.port, '/healthz', runtime.appHost)).status).toBe(200);
  }

  it('RPC-3 malformed JSON gets a parse error answer carrying its id, and the socket stays usable', async () => {
    await raw.send('{"jsonrpc":"2.0","id":7,"method":"projects.list",');
    const answer = await raw.nextResponse((r) => r.id === 7);
    expect(errorOf(answer)).toMatchObject({ code: -32700, data: { code: 'invalid_params' } });
    expect(errorOf(answer).message).toMatch(/JSON/);
    await raw.send('not json at all');
    expect(errorOf(await raw.nextResponse((r) => r.id === null))).toMatchObject({
      code: -32700,
      data: { code: 'invalid_params' },
    });
    await expectStillServing(raw);
  });

  it('RPC-3 a binary frame gets an invalid_params answer, even when it holds a valid request, and the socket stays usable', async () => {
    await raw.send(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'projects.list' })), { binary: true });
    const answer = await raw.nextResponse();
    expect(answer.id).toBeNull();
    expect(errorOf(answer)).toMatchObject({ code: -32600, data: { code: 'invalid_params' } });
    expect(errorOf(answer).message).toMatch(/binary/i);
    await expectStillServing(raw);
  });

  it('RPC-3 JSON values that are not requests get invalid_params answers, and the socket stays usable', async () => {
    const notRequests: { frame: string; id: string | number | null }[] = [
      { frame: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'projects.list' }]), id: null },
      { frame: JSON.stringify({ id: 21, method: 'projects.list' }), id: 21 },
      { frame: JSON.stringify({ jsonrpc: '1.0', id: 22, method: 'projects.list' }), id: 22 },
      { frame: JSON.stringify({ jsonrpc: '2.0', id: 23 }), id: 23 },
      { frame: JSON.stringify({ jsonrpc: '2.0', id: 24, method: 42 }), id: 24 },
      { frame: JSON.stringify({ jsonrpc: '2.0', id: { nested: true }, method: 'projects.list' }), id: null },
      { frame: JSON.stringify({ jsonrpc: '2.0', method: 'projects.list' }), id: null },
      { frame: '42', id: null },
      { frame: 'null', id: null },
      { frame: '"projects.list"', id: null },
    ];
    for (const { frame, id } of notRequests) {
      await raw.send(frame);
      const answer = await raw.nextResponse();
      expect(answer.id, frame).toBe(id);
      expect(errorOf(answer), frame).toMatchObject({ code: -32600, data: { code: 'invalid_params' } });
      expect(errorOf(answer).message, frame).toMatch(/Not a JSON-RPC 2\.0 request/);
    }
    await expectStillServing(raw);
  });

  it('RPC-3 deeply nested JSON in any part of a frame gets an error answer, and the socket stays usable', async () => {
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
    const frames = [
      { frame: deep(500_000), code: -32600 },
      {
        frame: `{"jsonrpc":"2.0","id":31,"method":"sessions.create","params":{"projectId":"p","agent":"shell","title":${deep(500_000)}}}`,
        code: -32602,
      },
      { frame: `{"jsonrpc":"2.0","id":32,"method":"projects.list","params":{"x":${deep(500_000)}}}`, code: -32602 },
      { frame: `{"jsonrpc":"2.0","id":${deep(500_000)},"method":"projects.list"}`, code: -32600 },
    ];
    for (const { frame, code } of frames) {
      await raw.send(frame);
      const answer = await raw.nextResponse();
      expect(errorOf(answer), frame.slice(0, 80)).toMatchObject({ code, data: { code: 'invalid_params' } });
    }
    await expectStillServing(raw);
  });

  it('RPC-3 an unknown method gets not_found (-32601) naming the method, and the socket stays usable', async () => {
    await raw.send(JSON.stringify({ jsonrpc: '2.0', id: 'string-id-1', method: 'files.deleteEverything', params: {} }));
    const answer = await raw.nextResponse((r) => r.id === 'string-id-1');
    expect(errorOf(answer)).toMatchObject({
      code: -32601,
      data: { code: 'not_found', method: 'files.deleteEverything' },
    });
    expect(errorOf(answer).message).toContain('files.deleteEverything');
    // Names that exist on every object must not be mistaken for methods.
    for (const method of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      expect(await raw.requestError(method), method).toMatchObject({ code: -32601, data: { code: 'not_found' } });
    }
    await expectStillServing(raw);
  });

  it('RPC-3 invalid params get invalid_params (-32602) naming the method and field, and the socket stays usable', async () => {
    const wrongType = await raw.requestError('sessions.timeline', { sessionId: 5 });
    expect(wrongType).toMatchObject({ code: -32602, data: { code: 'invalid_params' } });
    expect(wrongType.message).toContain('sessions.timeline');
    expect(wrongType.message).toContain('sessionId');
    const extraField = await raw.requestError('projects.list', { bogus: true });
    expect(extraField).toMatchObject({ code: -32602, data: { code: 'invalid_params' } });
    expect(extraField.message).toContain('bogus');
    expect(await raw.requestError('sessions.list', [1, 2])).toMatchObject({
      code: -32602,
      data: { code: 'invalid_params' },
    });
    await expectStillServing(raw);
  });

  it('RPC-3 a text frame a bit over 32 MiB gets too_large with its id, and the socket stays usable', async () => {
    const prefix = '{"jsonrpc":"2.0","id":42,"method":"chat.send","params":{"sessionId":"s","operationId":"o","text":"';
    const frame = prefix + 'a'.repeat(MAX_FRAME_BYTES + 1024) + '"}}';
    await raw.send(frame);
    const answer = await raw.nextResponse((r) => r.id === 42, 60_000);
    expect(errorOf(answer)).toMatchObject({ code: -32013, data: { code: 'too_large', limit: MAX_FRAME_BYTES } });
    expect(errorOf(answer).message).toContain(String(MAX_FRAME_BYTES));
    await expectStillServing(raw);
  });

  it('RPC-3 a frame of exactly 32 MiB is still read and answered on its merits', async () => {
    const head = '{"jsonrpc":"2.0","id":43,"method":"projects.list","params":{"pad":"';
    const tail = '"}}';
    await raw.send(head + 'b'.repeat(MAX_FRAME_BYTES - head.length - tail.length) + tail);
    const answer = await raw.nextResponse((r) => r.id === 43, 60_000);
    // Not too_large: the frame is within the limit, so its params are checked (and "pad" is unknown).
    expect(errorOf(answer)).toMatchObject({ code: -32602, data: { code: 'invalid_params' } });
    await expectStillServing(raw);
  });

  it('RPC-2 every method but auth.hello and pair.redeem, called first, answers unauthorized and closes the socket with 4401', async () => {
    const guarded = (Object.keys(methods) as MethodName[]).filter((m) => !UNAUTHENTICATED_METHODS.has(m));
    expect(guarded.length).toBeGreaterThanOrEqual(11);
    for (const method of [...guarded, 'no.such.method']) {
      const socket = await RawRpcSocket.open(runtime);
      const error = await socket.requestError(method, WELL_FORMED_PARAMS[method as MethodName]);
      expect(error, method).toMatchObject({ code: -32001, data: { code: 'unauthorized' } });
      expect(error.message, method).toMatch(/auth\.hello/);
      expect((await socket.closed).code, method).toBe(4401);
    }
    expect(runtime.child.exitCode).toBeNull();
  });

  it('RPC-2 a call pipelined right behind a successful auth.hello is served', async () => {
    const socket = await RawRpcSocket.open(runtime);
    await socket.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'auth.hello',
        params: { token: TEST_TOKEN, protocolVersion: PROTOCOL_VERSION },
      }),
    );
    await socket.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'projects.list' }));
    expect(resultOf(await socket.nextResponse((r) => r.id === 1))).toMatchObject({ protocolVersion: PROTOCOL_VERSION });
    expect(resultOf(await socket.nextResponse((r) => r.id === 2))).toMatchObject({
      projects: [{ directory: dirs.projectDirs[0] }],
    });
    socket.close();
  });

  it('RPC-4 the v1 method table is exactly the methods the integration tests cover', () => {
    // A new method must come with its own happy-path and error tests in methods.test.ts.
    expect(Object.keys(methods).sort()).toEqual(Object.keys(WELL_FORMED_PARAMS).sort());
  });
});
