import { afterEach, describe, expect, it, vi } from 'vitest';
import { CLOSE_CODES } from '../../../lib/protocol/closeCodes';
import { methods, type MethodName } from '../../../lib/protocol/methods';
import type { RpcNotification } from '../../../lib/protocol/notifications';
import type { TimelineRow } from '../../../lib/protocol/rows';
import { MAX_FRAME_BYTES, PROTOCOL_VERSION } from '../../../lib/protocol/version';
import type { MethodHandlers } from '../../../server/rpc/methodHandlers';
import { RpcConnection } from '../../../server/rpc/rpcConnection';
import { DEFAULT_SOCKET_LIMITS, type SocketLimits } from '../../../server/rpc/socketLimits';
import { RuntimeError } from '../../../server/runtime/errors';
import { silentLogger } from '../../../server/runtime/log';
import { MemorySocketPair } from '../../fixtures/memorySocket';

const GOOD_TOKEN = 'good-token';
const LIMITS: SocketLimits = {
  ...DEFAULT_SOCKET_LIMITS,
  softBufferedBytes: 1_000,
  hardBufferedBytes: 10_000,
  stallMs: 5_000,
  maxHeldNotifications: 3,
};

/** Every method refuses, but for the few a connection test needs. */
function fakeHandlers(): MethodHandlers {
  const refuse = () => {
    throw new RuntimeError('unavailable', 'Not part of this test.');
  };
  // Filled for every method name just below.
  const handlers = {} as MethodHandlers;
  for (const name of Object.keys(methods) as MethodName[]) handlers[name] = refuse;
  handlers['auth.hello'] = (params, ctx) => {
    if (params.token !== GOOD_TOKEN) throw new RuntimeError('unauthorized', 'This token is not valid.');
    ctx.authenticate({ deviceId: 'device-1' });
    return { protocolVersion: PROTOCOL_VERSION, serverVersion: 'test', deviceId: 'device-1' };
  };
  handlers['projects.list'] = () => ({ projects: [] });
  return handlers;
}

function open(limits: SocketLimits = LIMITS): { pair: MemorySocketPair; connection: RpcConnection } {
  const pair = new MemorySocketPair();
  const connection = new RpcConnection(pair, fakeHandlers(), 'http://app.test', silentLogger, limits);
  pair.attach(connection);
  return { pair, connection };
}

let nextId = 1;
function request(method: string, params?: unknown): { jsonrpc: '2.0'; id: number; method: string; params?: unknown } {
  return params === undefined
    ? { jsonrpc: '2.0', id: nextId++, method }
    : { jsonrpc: '2.0', id: nextId++, method, params };
}

async function authenticated(
  limits: SocketLimits = LIMITS,
): Promise<{ pair: MemorySocketPair; connection: RpcConnection }> {
  const opened = open(limits);
  opened.pair.clientSend(request('auth.hello', { token: GOOD_TOKEN, protocolVersion: PROTOCOL_VERSION }));
  await opened.pair.flushToServer();
  opened.pair.flushToClient();
  expect(opened.connection.authenticated).toBe(true);
  opened.pair.received.length = 0;
  return opened;
}

function answerTo(pair: MemorySocketPair, id: number): Record<string, unknown> {
  const answer = pair
    .receivedJson()
    .find((frame) => typeof frame === 'object' && frame !== null && (frame as { id?: unknown }).id === id);
  if (!answer) throw new Error(`no answer to ${id} among ${JSON.stringify(pair.receivedJson()).slice(0, 500)}`);
  return answer as Record<string, unknown>;
}

function row(id: string, text: string): TimelineRow {
  return {
    kind: 'message',
    id,
    sessionId: 'session',
    operationId: `op-${id}`,
    runId: 'run',
    text,
    state: 'done',
    createdAt: 1,
  };
}

const timelineRow = (id: string, text: string): RpcNotification => ({
  method: 'timeline.row',
  params: { sessionId: 'session', row: row(id, text) },
});

afterEach(() => {
  vi.useRealTimers();
});

describe('RpcConnection over an in-memory socket pair', () => {
  it('RPC-2 a first call other than auth.hello is answered unauthorized and the socket closes with 4401', async () => {
    const { pair } = open();
    const call = request('projects.list');
    pair.clientSend(call);
    await pair.flushToServer();
    pair.flushToClient();
    expect(answerTo(pair, call.id)).toMatchObject({ error: { code: -32001, data: { code: 'unauthorized' } } });
    expect(pair.closing).toEqual({ code: CLOSE_CODES.unauthorized, reason: 'unauthorized', how: 'close' });
  });

  it('RPC-2 after a good auth.hello the other methods are served', async () => {
    const { pair } = await authenticated();
    const call = request('projects.list');
    pair.clientSend(call);
    await pair.flushToServer();
    pair.flushToClient();
    expect(answerTo(pair, call.id)).toEqual({ jsonrpc: '2.0', id: call.id, result: { projects: [] } });
    expect(pair.closing).toBeNull();
  });

  it('RPC-2 a wrong token is refused and the socket closes with 4401', async () => {
    const { pair, connection } = open();
    const call = request('auth.hello', { token: 'wrong', protocolVersion: PROTOCOL_VERSION });
    pair.clientSend(call);
    await pair.flushToServer();
    pair.flushToClient();
    expect(answerTo(pair, call.id)).toMatchObject({ error: { data: { code: 'unauthorized' } } });
    expect(pair.closing?.code).toBe(CLOSE_CODES.unauthorized);
    expect(connection.authenticated).toBe(false);
  });

  it('RPC-3 malformed JSON, an unknown method, invalid params and a binary frame get error answers; the socket stays open', async () => {
    const { pair } = await authenticated();
    pair.clientSend('{"jsonrpc":"2.0","id":501,"method":"projects.list",');
    const unknown = request('no.such.method');
    const invalid = request('sessions.timeline', { sessionId: 7 });
    pair.clientSend(unknown);
    pair.clientSend(invalid);
    pair.clientSendBinary(Buffer.from(JSON.stringify(request('projects.list'))));
    await pair.flushToServer();
    pair.flushToClient();
    expect(answerTo(pair, 501)).toMatchObject({ error: { code: -32700, data: { code: 'invalid_params' } } });
    expect(answerTo(pair, unknown.id)).toMatchObject({
      error: { code: -32601, data: { code: 'not_found', method: 'no.such.method' } },
    });
    expect(answerTo(pair, invalid.id)).toMatchObject({ error: { code: -32602, data: { code: 'invalid_params' } } });
    expect(String((answerTo(pair, invalid.id).error as { message: string }).message)).toContain('sessionId');
    expect(pair.receivedJson()).toContainEqual(
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) }),
    );
    expect(pair.closing).toBeNull();
  });

  it('RPC-3 an authenticated frame over 32 MiB gets too_large with its id; the socket stays open', async () => {
    const { pair } = await authenticated();
    const head = '{"jsonrpc":"2.0","id":777,"method":"chat.send","params":{"text":"';
    pair.clientSend(head + 'x'.repeat(MAX_FRAME_BYTES) + '"}}');
    await pair.flushToServer();
    pair.flushToClient();
    expect(answerTo(pair, 777)).toMatchObject({
      error: { code: -32013, data: { code: 'too_large', limit: MAX_FRAME_BYTES } },
    });
    expect(pair.closing).toBeNull();
  });

  it('SEC-9 bytes of an unfinished frame past the pre-auth budget drop the socket with 1009', async () => {
    const { pair } = open();
    pair.clientSendPartialFrame(LIMITS.preAuthBytes);
    await pair.flushToServer();
    expect(pair.closing).toBeNull();
    pair.clientSendPartialFrame(1);
    await pair.flushToServer();
    expect(pair.closing).toMatchObject({ code: CLOSE_CODES.tooLargeBeforeAuth, how: 'terminate' });
    expect(pair.closing?.reason).toContain(String(LIMITS.preAuthBytes));
  });

  it('SEC-9 the pre-auth budget ends with auth.hello: later frames of any size are read', async () => {
    const { pair } = await authenticated();
    pair.clientSendPartialFrame(LIMITS.preAuthBytes * 10);
    const call = request('projects.list', undefined);
    pair.clientSend(call);
    await pair.flushToServer();
    pair.flushToClient();
    expect(pair.closing).toBeNull();
    expect(answerTo(pair, call.id)).toHaveProperty('result');
  });

  it('RPC-2 / SEC-9 a socket silent past the auth timeout is dropped (terminated, not closed politely) with 4408', async () => {
    vi.useFakeTimers();
    const { pair } = open();
    vi.advanceTimersByTime(LIMITS.authTimeoutMs - 1);
    expect(pair.closing).toBeNull();
    vi.advanceTimersByTime(1);
    expect(pair.closing).toEqual({
      code: CLOSE_CODES.authTimeout,
      reason: 'auth.hello was not sent in time',
      how: 'terminate',
    });
  });

  it('SEC-9 over the soft cap requests wait and reading pauses; notifications keep only the latest per subject; all go once drained', async () => {
    const { pair, connection } = await authenticated();
    pair.unreadBytes = LIMITS.softBufferedBytes + 1;
    const first = request('projects.list');
    pair.clientSend(first);
    await pair.flushToServer();
    // The answer went out and found the queue over the cap: the socket is held.
    expect(pair.paused).toBe(true);
    const second = request('projects.list');
    pair.clientSend(second);
    pair.paused = false; // as if `ws` delivered a frame it had already read
    await pair.flushToServer();
    pair.paused = true;
    connection.notify(timelineRow('a', 'one'));
    connection.notify(timelineRow('b', 'other'));
    connection.notify(timelineRow('a', 'two'));
    expect(pair.unread).toBe(1);

    pair.unreadBytes = 0;
    pair.flushToClient();
    expect(pair.paused).toBe(false);
    // The held request is answered once its handler returns.
    await vi.waitFor(() => {
      pair.flushToClient();
      expect(pair.received).toHaveLength(4);
    });
    const frames = pair.receivedJson() as {
      id?: number;
      method?: string;
      params?: { row: { id: string; text: string } };
    }[];
    expect(frames.map((f) => f.id ?? `${f.method} ${f.params?.row.id} ${f.params?.row.text}`)).toEqual([
      first.id,
      'timeline.row b other',
      'timeline.row a two',
      second.id,
    ]);
    expect(pair.closing).toBeNull();
  });

  it('SEC-9 a socket held past the stall time is closed with 1008 and a reason', async () => {
    vi.useFakeTimers();
    const { pair } = await authenticated();
    pair.unreadBytes = LIMITS.softBufferedBytes + 1;
    pair.clientSend(request('projects.list'));
    await pair.flushToServer();
    expect(pair.paused).toBe(true);
    vi.advanceTimersByTime(LIMITS.stallMs - 1);
    expect(pair.closing).toBeNull();
    vi.advanceTimersByTime(1);
    expect(pair.closing).toMatchObject({ code: CLOSE_CODES.notReading, how: 'close' });
    expect(pair.closing?.reason).toMatch(/not reading/);
  });

  it('SEC-9 a socket that drains in time is not closed by the stall timer', async () => {
    vi.useFakeTimers();
    const { pair } = await authenticated();
    pair.unreadBytes = LIMITS.softBufferedBytes + 1;
    pair.clientSend(request('projects.list'));
    await pair.flushToServer();
    pair.unreadBytes = 0;
    pair.flushToClient();
    vi.advanceTimersByTime(LIMITS.stallMs * 2);
    expect(pair.closing).toBeNull();
    expect(pair.paused).toBe(false);
  });

  it('SEC-9 past the hard cap the socket is dropped at once', async () => {
    const { pair } = await authenticated();
    pair.unreadBytes = LIMITS.hardBufferedBytes + 1;
    pair.clientSend(request('projects.list'));
    await pair.flushToServer();
    expect(pair.closing).toMatchObject({ code: CLOSE_CODES.notReading, how: 'terminate' });
  });

  it('SEC-9 more distinct held notifications than allowed close the socket with 1013', async () => {
    const { pair, connection } = await authenticated();
    pair.unreadBytes = LIMITS.softBufferedBytes + 1;
    pair.clientSend(request('projects.list'));
    await pair.flushToServer();
    for (let i = 0; i < LIMITS.maxHeldNotifications; i++) connection.notify(timelineRow(`row-${i}`, 'x'));
    expect(pair.closing).toBeNull();
    connection.notify(timelineRow('one-too-many', 'x'));
    expect(pair.closing).toMatchObject({ code: CLOSE_CODES.tryAgainLater, how: 'close' });
  });

  it('RPC-2 a socket that has not authenticated gets no notifications', () => {
    const { pair, connection } = open();
    connection.notify(timelineRow('a', 'one'));
    pair.flushToClient();
    expect(pair.received).toEqual([]);
  });
});
