import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { RpcClient, type WebSocketLike } from '../../../lib/client/rpcClient';
import type { NotificationParams } from '../../../lib/protocol/notifications';

type SocketEvent = { data?: unknown; code?: number; reason?: string };

/** Just enough of a WebSocket to push frames at the client. */
function openSocket(): { socket: WebSocketLike; push(frame: unknown): void } {
  const messageListeners: ((event: SocketEvent) => void)[] = [];
  const socket: WebSocketLike = {
    readyState: 1,
    send() {},
    close() {},
    addEventListener(type, listener) {
      if (type === 'message') messageListeners.push(listener);
    },
  };
  return { socket, push: (frame) => messageListeners.forEach((listener) => listener({ data: JSON.stringify(frame) })) };
}

const row = {
  kind: 'message',
  id: 'm1',
  sessionId: 's1',
  operationId: 'o1',
  runId: 'r1',
  text: 'hi',
  state: 'done',
  createdAt: 1,
};

describe('RpcClient notification listeners', () => {
  it('RPC-1 a listener for one notification gets only that notification, with its params typed and validated', () => {
    const { socket, push } = openSocket();
    const client = new RpcClient(socket);
    const rows: NotificationParams<'timeline.row'>[] = [];
    const changes: NotificationParams<'sessions.changed'>[] = [];
    client.onNotification('timeline.row', (params) => {
      expectTypeOf(params).toEqualTypeOf<NotificationParams<'timeline.row'>>();
      rows.push(params);
    });
    client.onNotification('sessions.changed', (params) => changes.push(params));

    push({ jsonrpc: '2.0', method: 'sessions.changed', params: { sessionId: 's1', deleted: true } });
    push({ jsonrpc: '2.0', method: 'timeline.row', params: { sessionId: 's1', row } });
    // Params that do not match their schema, and unknown notifications, reach nobody.
    push({ jsonrpc: '2.0', method: 'timeline.row', params: { sessionId: 's1', row: { kind: 'message' } } });
    push({ jsonrpc: '2.0', method: 'no.such.notification', params: { sessionId: 's1', row } });

    expect(changes).toEqual([{ sessionId: 's1', deleted: true }]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ sessionId: 's1', row: { id: 'm1', text: 'hi' } });
  });

  it('RPC-1 the returned function stops one listener and leaves the others', () => {
    const { socket, push } = openSocket();
    const client = new RpcClient(socket);
    const first: string[] = [];
    const second: string[] = [];
    const stopFirst = client.onNotification('preview.changed', (params) => first.push(params.path));
    client.onNotification('preview.changed', (params) => second.push(params.path));
    push({ jsonrpc: '2.0', method: 'preview.changed', params: { previewId: 'p', path: '/a.js' } });
    stopFirst();
    push({ jsonrpc: '2.0', method: 'preview.changed', params: { previewId: 'p', path: '/b.js' } });
    expect(first).toEqual(['/a.js']);
    expect(second).toEqual(['/a.js', '/b.js']);
  });

  it('RPC-1 frames that fail their schema are dropped and counted, each kind reported with its reason', () => {
    const messageListeners: ((event: SocketEvent) => void)[] = [];
    const socket: WebSocketLike = {
      readyState: 1,
      send() {},
      close() {},
      addEventListener: (type, listener) => type === 'message' && messageListeners.push(listener),
    };
    const raw = (data: unknown) => messageListeners.forEach((listener) => listener({ data }));
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const client = new RpcClient(socket);
      const rows: unknown[] = [];
      client.onNotification('timeline.row', (params) => rows.push(params));
      raw(JSON.stringify({ jsonrpc: '2.0', method: 'timeline.row', params: { sessionId: 's1', row } }));
      expect(warn).not.toHaveBeenCalled();
      raw('{ not json');
      raw(
        JSON.stringify({
          jsonrpc: '2.0',
          method: 'timeline.row',
          params: { sessionId: 's1', row: { kind: 'message' } },
        }),
      );
      raw(JSON.stringify({ jsonrpc: '2.0', method: 'no.such.notification', params: {} }));
      raw(JSON.stringify({ jsonrpc: '2.0', id: 99, result: {} }));
      raw(JSON.stringify({ hello: 'world' }));
      raw(new Uint8Array([1, 2, 3]));
      expect(rows).toHaveLength(1);
      const reported = warn.mock.calls.map(([text]) => String(text));
      expect(reported).toHaveLength(6);
      for (const reason of [
        'not JSON',
        'timeline.row notification that fails its schema',
        'no.such.notification',
        'no call in flight (id 99)',
        'neither a notification nor an answer',
        'binary frame',
      ]) {
        expect(reported.some((text) => text.includes(reason))).toBe(true);
      }
      // Past the first ten, only every hundredth is reported; all are counted.
      for (let i = 0; i < 200; i++) raw('{');
      expect(warn.mock.calls.length).toBe(10 + 2);
      expect(String(warn.mock.calls.at(-1)![0])).toContain('(200 dropped on this connection)');
    } finally {
      warn.mockRestore();
    }
  });
});
