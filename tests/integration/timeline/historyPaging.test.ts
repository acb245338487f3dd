import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { TimelineRow } from '../../../lib/protocol/rows';
import { MAX_COMMAND_OUTPUT_RANGE_BYTES } from '../../../lib/protocol/version';
import type { HistoryEntry } from '../../../server/runtime/agents/agent';
import { ScriptedAgent, writeHistory } from '../../fixtures/scriptedAgent';
import {
  body,
  createScriptedSession,
  duplicateIds,
  longHistory,
  startScriptedRuntime,
  type ScriptedRuntime,
} from '../../fixtures/scriptedAgentSessions';

/** JSON with sorted keys: the same value gives the same bytes whatever order its fields were written in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

/** What a saved row must be for one entry of the agent's history (no app run sent or ran any of these). */
function expectRowOf(row: TimelineRow, entry: HistoryEntry): void {
  if (entry.kind === 'item') {
    const { id, sessionId: _s, runId, source, ...item } = row as TimelineRow & { source: string };
    expect(id).toBe(`i:${entry.item.itemId}`);
    expect([runId, source]).toEqual([null, 'saved']);
    expect(canonical(item)).toBe(canonical(entry.item));
  } else if (entry.kind === 'user') {
    expect(row).toMatchObject({ kind: 'userText', id: `i:${entry.itemId}`, text: entry.text, source: 'saved' });
  } else {
    expect(row).toMatchObject({
      kind: 'toolCall',
      id: `i:${entry.itemId}`,
      tool: 'command',
      input: { text: entry.command },
    });
  }
}

describe('TL-4 paged history through the agent', () => {
  let scripted: ScriptedRuntime;
  let client: RpcClient;

  beforeAll(async () => {
    scripted = await startScriptedRuntime();
    client = await scripted.runtime.connect();
  }, 120_000);
  afterAll(async () => {
    client?.close();
    await scripted?.runtime.stopIfRunning();
    scripted?.remove();
  });

  it("TL-4 a history of 2,100 items opens at its newest page and pages back to the first, each page the agent's own range", async () => {
    const sessionId = await createScriptedSession(client);
    const history = longHistory(2100);
    writeHistory(scripted.historyDir, sessionId, null, history);
    // The agent's own pages, walked with its own cursors, are what each runtime page must match.
    const agent = new ScriptedAgent(scripted.historyDir);
    const limit = 150;
    let agentBefore: string | null = null;
    let before: string | undefined;
    const all: TimelineRow[] = [];
    for (let pageCount = 0; ; pageCount++) {
      expect(pageCount).toBeLessThan(100);
      const page = await client.call('sessions.timeline', { sessionId, limit, ...(before ? { before } : {}) });
      const own = await agent.historyPage({
        sessionId,
        cwd: '',
        parentItemId: null,
        before: agentBefore,
        after: null,
        limit,
      });
      expect(page.rows).toHaveLength(own.entries.length);
      page.rows.forEach((row, n) => expectRowOf(row, own.entries[n]!));
      if (pageCount === 0) expect(page.rows.at(-1)!.id).toBe(`i:h${history.length - 1}`);
      all.unshift(...page.rows);
      expect(page.older === null).toBe(own.older === null);
      if (page.older === null) break;
      before = page.older;
      agentBefore = own.older;
    }
    expect(all[0]!.id).toBe('i:h0');
    expect(all).toHaveLength(history.length);
    expect(duplicateIds(all)).toEqual([]);
  }, 120_000);

  it('TL-4 `after` cursors page forward from the first page to the newest', async () => {
    const sessionId = await createScriptedSession(client);
    writeHistory(scripted.historyDir, sessionId, null, longHistory(450));
    let page = await client.call('sessions.timeline', { sessionId, limit: 100 });
    while (page.older) page = await client.call('sessions.timeline', { sessionId, limit: 100, before: page.older });
    const ids = page.rows.map((row) => row.id);
    while (page.newer) {
      page = await client.call('sessions.timeline', { sessionId, limit: 100, after: page.newer });
      ids.push(...page.rows.map((row) => row.id));
    }
    expect(ids).toEqual(Array.from({ length: 450 }, (_, n) => `i:h${n}`));
  }, 60_000);

  it('TL-1 unknown and malformed entries become raw rows; the rest of the page is kept', async () => {
    const sessionId = await createScriptedSession(client);
    const good = {
      kind: 'item',
      item: { kind: 'agentText', itemId: 'ok', parentItemId: null, createdAt: 5, text: 'fine', streaming: false },
    };
    writeHistory(scripted.historyDir, sessionId, null, [
      { kind: 'hologram', itemId: 'x1', glow: true },
      { kind: 'item', item: { kind: 'teleport', itemId: 'x2', parentItemId: null, createdAt: 3 } },
      { kind: 'item', item: { kind: 'toolCall', itemId: 'x3', parentItemId: null, createdAt: 4, tool: 7 } },
      42,
      good,
    ]);
    const { rows } = await client.call('sessions.timeline', { sessionId });
    expect(rows.map((row) => [row.kind, 'label' in row ? row.label : null])).toEqual([
      ['rawItem', 'hologram'],
      ['rawItem', 'teleport'],
      ['rawItem', 'toolCall'],
      ['rawItem', 'unknown'],
      ['agentText', null],
    ]);
    expect(rows.slice(0, 3).map((row) => row.id)).toEqual(['i:x1', 'i:x2', 'i:x3']);
    const raw = rows[1]!;
    expect(raw.kind === 'rawItem' && raw.text.text).toContain('teleport');
    // The same entry is the same row on every read (its id does not depend on the read).
    const again = await client.call('sessions.timeline', { sessionId });
    expect(again.rows.map((row) => row.id)).toEqual(rows.map((row) => row.id));
  }, 60_000);

  it('TL-1 a 10 MiB saved text is inline up to 64 KiB and read whole through sessions.itemText', async () => {
    const sessionId = await createScriptedSession(client);
    const unit = 'abcdefghij€ü\n';
    const text = unit.repeat(Math.ceil((10 * 1024 * 1024) / Buffer.byteLength(unit)));
    writeHistory(scripted.historyDir, sessionId, null, [
      {
        kind: 'item',
        item: { kind: 'rawItem', itemId: 'big', parentItemId: null, createdAt: 1, label: 'dump', text: body(text) },
      },
    ]);
    const { rows } = await client.call('sessions.timeline', { sessionId });
    const row = rows[0]!;
    if (row.kind !== 'rawItem') throw new Error(`expected a raw row, got ${row.kind}`);
    expect(row.text.truncated).toBe(true);
    expect(row.text.byteLength).toBe(Buffer.byteLength(text));
    expect(Buffer.byteLength(row.text.text)).toBeLessThanOrEqual(64 * 1024);
    expect(text.startsWith(row.text.text)).toBe(true);
    const parts: Buffer[] = [];
    for (let offset = 0; ;) {
      const slice = await client.call('sessions.itemText', {
        sessionId,
        itemId: 'big',
        field: 'text',
        offset,
        length: MAX_COMMAND_OUTPUT_RANGE_BYTES,
      });
      parts.push(Buffer.from(slice.dataBase64, 'base64'));
      offset += slice.byteCount;
      if (slice.byteCount === 0 || offset >= slice.availableBytes) break;
    }
    expect(Buffer.concat(parts).equals(Buffer.from(text))).toBe(true);
  }, 120_000);

  it('TL-4 a bad cursor is an invalid_params error, not a crash', async () => {
    const sessionId = await createScriptedSession(client);
    await expect(client.call('sessions.timeline', { sessionId, before: 'not-a-cursor' })).rejects.toMatchObject({
      code: 'invalid_params',
    });
    expect((await client.call('sessions.timeline', { sessionId })).rows).toEqual([]);
  }, 30_000);
});
