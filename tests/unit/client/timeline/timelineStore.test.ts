import { describe, expect, it } from 'vitest';
import { RpcClient, type WebSocketLike } from '../../../../lib/client/rpcClient';
import type { CachedTimelinePage, TimelinePageCache } from '../../../../lib/client/timeline/timelinePageCache';
import { TimelineStore } from '../../../../lib/client/timeline/timelineStore';
import type { TimelineRow } from '../../../../lib/protocol/rows';
import { waitUntil } from '../../../fixtures/waitUntil';

type SocketEvent = { data?: unknown; code?: number; reason?: string };

const SESSION = 's1';
const textRow = (n: number, text = `row ${n}`, source: 'live' | 'saved' = 'saved'): TimelineRow => ({
  kind: 'agentText',
  id: `i:${n}`,
  sessionId: SESSION,
  runId: null,
  itemId: String(n),
  parentItemId: null,
  createdAt: n,
  source,
  text,
  streaming: false,
});

/**
 * A runtime stand-in behind a socket: answers `sessions.timeline` from a list of rows with
 * index cursors, and pushes notifications when the test says so; `down` closes it.
 */
function fakeRuntime(
  rows: TimelineRow[],
  failure: (params: { before?: string }) => { code: string; message: string } | null = () => null,
) {
  const listeners: Record<string, ((event: SocketEvent) => void)[]> = {};
  const emit = (type: string, event: SocketEvent) => (listeners[type] ?? []).forEach((listener) => listener(event));
  const calls: { before?: string; limit?: number }[] = [];
  const socket: WebSocketLike = {
    readyState: 1,
    send(data) {
      const request = JSON.parse(String(data)) as { id: number; params: { before?: string; limit?: number } };
      calls.push(request.params);
      const failed = failure(request.params);
      if (failed) {
        const error = { code: -32000, message: failed.message, data: { code: failed.code } };
        queueMicrotask(() => emit('message', { data: JSON.stringify({ jsonrpc: '2.0', id: request.id, error }) }));
        return;
      }
      const end = request.params.before === undefined ? rows.length : Number(request.params.before);
      const start = Math.max(0, end - (request.params.limit ?? 100));
      const result = {
        rows: rows.slice(start, end),
        older: start > 0 ? String(start) : null,
        newer: null,
        revision: 5,
      };
      queueMicrotask(() => emit('message', { data: JSON.stringify({ jsonrpc: '2.0', id: request.id, result }) }));
    },
    close() {},
    addEventListener(type, listener) {
      (listeners[type] ??= []).push(listener);
    },
  };
  return {
    client: new RpcClient(socket),
    calls,
    notify: (method: string, params: unknown) =>
      emit('message', { data: JSON.stringify({ jsonrpc: '2.0', method, params }) }),
    down: () => emit('close', { code: 1006, reason: '' }),
  };
}

function memoryCache(): TimelinePageCache & { pages: Map<string, CachedTimelinePage> } {
  const pages = new Map<string, CachedTimelinePage>();
  const key = (s: string, p: string | null, b: string | null) => `${s}|${p ?? ''}|${b ?? 'newest'}`;
  return {
    pages,
    read: async (s, p, b) => pages.get(key(s, p, b)) ?? null,
    save: async (s, p, b, page) => void pages.set(key(s, p, b), { ...page, savedAt: 1 }),
  };
}

const ids = (store: TimelineStore) => store.getSnapshot().rows.map((row) => row.id);

describe('TimelineStore', () => {
  it('TL-4 opens at the newest page and reads older pages back to the first row, each saved on the device', async () => {
    const rows = Array.from({ length: 250 }, (_, n) => textRow(n));
    const runtime = fakeRuntime(rows);
    const cache = memoryCache();
    const store = new TimelineStore({
      client: runtime.client,
      sessionId: SESSION,
      parentItemId: null,
      pageSize: 100,
      cache,
    });
    await store.open();
    expect(ids(store)).toEqual(rows.slice(150).map((row) => row.id));
    expect(store.getSnapshot().hasOlder).toBe(true);
    await store.loadOlder();
    await store.loadOlder();
    expect(ids(store)).toEqual(rows.map((row) => row.id));
    expect(store.getSnapshot().hasOlder).toBe(false);
    expect([...cache.pages.keys()].sort()).toEqual(['s1||150', 's1||50', 's1||newest']);
    store.close();
  });

  it('TL-3 merges live rows by id: a newer revision wins, an older one and a removed row never come back', async () => {
    const runtime = fakeRuntime([textRow(1), textRow(2, 'live', 'live')]);
    const store = new TimelineStore({
      client: runtime.client,
      sessionId: SESSION,
      parentItemId: null,
      cache: memoryCache(),
    });
    await store.open();
    runtime.notify('timeline.row', { sessionId: SESSION, row: textRow(2, 'live, more', 'live'), revision: 7 });
    runtime.notify('timeline.row', { sessionId: SESSION, row: textRow(2, 'stale', 'live'), revision: 6 });
    runtime.notify('timeline.row', { sessionId: 'other', row: textRow(9), revision: 8 });
    expect(store.getSnapshot().rows.map((row) => (row.kind === 'agentText' ? row.text : ''))).toEqual([
      'row 1',
      'live, more',
    ]);
    runtime.notify('timeline.row', { sessionId: SESSION, row: textRow(3, 'gone soon', 'live'), revision: 8 });
    runtime.notify('timeline.removed', { sessionId: SESSION, ids: ['i:3'], revision: 9 });
    runtime.notify('timeline.row', { sessionId: SESSION, row: textRow(3, 'late', 'live'), revision: 8 });
    runtime.notify('timeline.row', { sessionId: SESSION, row: textRow(2, 'saved', 'saved'), revision: 10 });
    expect(ids(store)).toEqual(['i:1', 'i:2']);
    const second = store.getSnapshot().rows[1]!;
    expect(second.kind === 'agentText' && second.source).toBe('saved');
    store.close();
  });

  it('TL-4 shows the saved pages offline, following the same cursors', async () => {
    const rows = Array.from({ length: 30 }, (_, n) => textRow(n));
    const cache = memoryCache();
    const online = fakeRuntime(rows);
    const first = new TimelineStore({
      client: online.client,
      sessionId: SESSION,
      parentItemId: null,
      pageSize: 10,
      cache,
    });
    await first.open();
    await first.loadOlder();
    first.close();

    const offline = new TimelineStore({ client: null, sessionId: SESSION, parentItemId: null, pageSize: 10, cache });
    await offline.open();
    expect(offline.getSnapshot().offline).toBe(true);
    expect(ids(offline)).toEqual(rows.slice(20).map((row) => row.id));
    await offline.loadOlder();
    expect(ids(offline)).toEqual(rows.slice(10).map((row) => row.id));
    await offline.loadOlder();
    expect(offline.getSnapshot().error).toMatch(/not saved on this device/);
    expect(ids(offline)).toHaveLength(20);
  });

  it('TL-4 a connection that drops while paging falls back to the saved page', async () => {
    const rows = Array.from({ length: 30 }, (_, n) => textRow(n));
    const cache = memoryCache();
    const runtime = fakeRuntime(rows);
    const store = new TimelineStore({
      client: runtime.client,
      sessionId: SESSION,
      parentItemId: null,
      pageSize: 10,
      cache,
    });
    await store.open();
    await cache.save(SESSION, null, '20', { rows: rows.slice(10, 20), older: '10', revision: 5 });
    runtime.down();
    await store.loadOlder();
    await waitUntil(() => store.getSnapshot().offline, 'the store shows the saved page');
    expect(ids(store)).toEqual(rows.slice(10).map((row) => row.id));
  });

  it('TL-4 a reconnect keeps the rows shown and the older pages read, and merges the newest page again', async () => {
    const rows = Array.from({ length: 30 }, (_, n) => textRow(n));
    const first = fakeRuntime(rows);
    const store = new TimelineStore({
      client: first.client,
      sessionId: SESSION,
      parentItemId: null,
      pageSize: 10,
      cache: memoryCache(),
    });
    await store.open();
    await store.loadOlder();
    store.setClient(null);
    expect(store.getSnapshot()).toMatchObject({ offline: true });
    expect(ids(store)).toEqual(rows.slice(10).map((row) => row.id));

    const grown = [...rows, textRow(30), textRow(31)];
    const second = fakeRuntime(grown);
    store.setClient(second.client);
    await waitUntil(() => !store.getSnapshot().offline, 'the store is online again');
    expect(ids(store)).toEqual(grown.slice(10).map((row) => row.id));
    await store.loadOlder();
    expect(ids(store)).toEqual(grown.map((row) => row.id));
    expect(store.getSnapshot().hasOlder).toBe(false);
    // Notifications of the replaced connection no longer reach the store.
    first.notify('timeline.row', { sessionId: SESSION, row: textRow(99), revision: 50 });
    expect(ids(store)).not.toContain('i:99');
    store.close();
  });

  it('SRC-3 a page failing with reload_required says so with its code, and reload reads the newest page again in place of the rows shown', async () => {
    let changed = true;
    const rows = Array.from({ length: 30 }, (_, n) => textRow(n));
    const runtime = fakeRuntime(rows, (params) =>
      changed && params.before !== undefined
        ? { code: 'reload_required', message: 'Timeline source changed; reload the timeline' }
        : null,
    );
    const store = new TimelineStore({
      client: runtime.client,
      sessionId: SESSION,
      parentItemId: null,
      pageSize: 10,
      cache: memoryCache(),
    });
    await store.open();
    await store.loadOlder();
    expect(store.getSnapshot()).toMatchObject({
      error: 'Timeline source changed; reload the timeline',
      errorCode: 'reload_required',
      loadingOlder: false,
    });
    expect(ids(store)).toEqual(rows.slice(20).map((row) => row.id));
    changed = false;
    rows.splice(0, rows.length, ...Array.from({ length: 30 }, (_, n) => textRow(n, `rewritten ${n}`)));
    await store.reload();
    expect(store.getSnapshot()).toMatchObject({ error: null, errorCode: null, opening: false });
    expect(store.getSnapshot().rows.map((row) => row.kind === 'agentText' && row.text)).toEqual(
      rows.slice(20).map((row) => row.kind === 'agentText' && row.text),
    );
    await store.loadOlder();
    expect(ids(store)).toEqual(rows.slice(10).map((row) => row.id));
    store.close();
  });
});
