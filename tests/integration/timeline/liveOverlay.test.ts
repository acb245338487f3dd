import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { NotificationParams } from '../../../lib/protocol/notifications';
import type { TimelineRow } from '../../../lib/protocol/rows';
import { MAX_COMMAND_OUTPUT_RANGE_BYTES } from '../../../lib/protocol/version';
import { bigText, writeHistory } from '../../fixtures/scriptedAgent';
import {
  agentText,
  createScriptedSession,
  duplicateIds,
  sendScript,
  startScriptedRuntime,
  type ScriptedRuntime,
} from '../../fixtures/scriptedAgentSessions';
import { waitUntil } from '../../fixtures/waitUntil';

const sourceOf = (row: TimelineRow) => ('source' in row ? row.source : 'app');
const textOf = (rows: readonly TimelineRow[], id: string) => {
  const row = rows.find((r) => r.id === id);
  return row && 'text' in row ? row.text : undefined;
};
const itemIdsOf = (rows: readonly TimelineRow[]) => rows.flatMap((row) => ('itemId' in row ? [row.itemId] : []));

/** Waits until the newest page satisfies `done`; answers that page. */
async function waitForPage(client: RpcClient, sessionId: string, done: (rows: TimelineRow[]) => boolean, what: string) {
  let last: TimelineRow[] = [];
  return waitUntil(
    async () => {
      const page = await client.call('sessions.timeline', { sessionId });
      last = page.rows;
      return done(page.rows) ? page : null;
    },
    () => `${what} (last rows: ${JSON.stringify(last.map((row) => [row.id, sourceOf(row)]))})`,
    90_000,
  );
}

describe('TL-3 live overlay and reconciliation', () => {
  let scripted: ScriptedRuntime;
  let client: RpcClient;
  const rowNotes: NotificationParams<'timeline.row'>[] = [];
  const removals: NotificationParams<'timeline.removed'>[] = [];

  beforeAll(async () => {
    scripted = await startScriptedRuntime();
    client = await scripted.runtime.connect();
    client.onNotification('timeline.row', (params) => rowNotes.push(params));
    client.onNotification('timeline.removed', (params) => removals.push(params));
  }, 120_000);
  afterAll(async () => {
    client?.close();
    await scripted?.runtime.stopIfRunning();
    scripted?.remove();
  });

  it('TL-3 saved rows replace live ones by item id once the turn is saved; live rows it lacks are removed', async () => {
    const sessionId = await createScriptedSession(client);
    const streamed = Array.from({ length: 30 }, (_, n) => agentText('A', `partial ${n}`, 10, true));
    const { runId } = await sendScript(client, sessionId, {
      items: [...streamed, agentText('B', 'b live', 11), agentText('C', 'c live', 12)],
      save: true,
      saved: [
        { kind: 'item', item: agentText('A', 'a final', 10) },
        { kind: 'item', item: agentText('B', 'b saved', 11) },
        { kind: 'item', item: agentText('D', 'd new', 13) },
      ],
    });
    const page = await waitForPage(
      client,
      sessionId,
      (rows) => rows.some((r) => r.id === 'i:D') && !rows.some((r) => sourceOf(r) === 'live'),
      'the saved turn replaces the live rows',
    );
    expect(page.rows.map((row) => row.id)).toEqual([`m:${runId}`, 'i:A', 'i:B', 'i:D']);
    expect([textOf(page.rows, 'i:A'), textOf(page.rows, 'i:B')]).toEqual(['a final', 'b saved']);
    expect(duplicateIds(page.rows)).toEqual([]);

    const live = rowNotes.filter((n) => n.sessionId === sessionId && 'source' in n.row && n.row.source === 'live');
    const liveRevisions = live.map((n) => n.revision!);
    // One global revision that only grows; the 30 quick updates of A were throttled, the last one kept (SES-4).
    expect(liveRevisions).toEqual([...liveRevisions].sort((a, b) => a - b));
    expect(new Set(liveRevisions).size).toBe(liveRevisions.length);
    const aUpdates = live.filter((n) => n.row.id === 'i:A');
    expect(aUpdates.length).toBeLessThan(30);
    expect(textOf([aUpdates.at(-1)!.row], 'i:A')).toBe('partial 29');
    const removal = removals.find((r) => r.sessionId === sessionId);
    expect(removal?.ids).toEqual(['i:C']);
    expect(removal!.revision).toBeGreaterThan(Math.max(...liveRevisions));
    const savedA = rowNotes.find(
      (n) => n.sessionId === sessionId && n.row.id === 'i:A' && 'source' in n.row && n.row.source === 'saved',
    );
    expect(savedA?.revision).toBe(removal!.revision);
    expect(page.revision).toBeGreaterThanOrEqual(removal!.revision);
  }, 120_000);

  it('TL-3 while the history lacks the turn the live rows stay; they are reconciled when it arrives', async () => {
    const sessionId = await createScriptedSession(client);
    const { runId, operationId } = await sendScript(client, sessionId, {
      items: [agentText('E', 'e live', 20), agentText('F', 'f live', 21)],
    });
    const ended = await waitForPage(
      client,
      sessionId,
      (rows) => rows.some((r) => r.kind === 'message' && r.state === 'done') && rows.some((r) => r.id === 'i:F'),
      'the run ends with its live rows shown',
    );
    expect(ended.rows.map((row) => [row.id, sourceOf(row)])).toEqual([
      [`m:${runId}`, 'app'],
      ['i:E', 'live'],
      ['i:F', 'live'],
    ]);
    writeHistory(scripted.historyDir, sessionId, null, [
      { kind: 'user', itemId: 'u1', text: 'the script', createdAt: Date.now(), clientId: operationId },
      { kind: 'item', item: agentText('E', 'e saved', 20) },
    ]);
    const page = await waitForPage(
      client,
      sessionId,
      (rows) => !rows.some((r) => sourceOf(r) === 'live'),
      'the late history replaces the live rows',
    );
    expect(page.rows.map((row) => row.id)).toEqual([`m:${runId}`, 'i:E']);
    expect(textOf(page.rows, 'i:E')).toBe('e saved');

    // The next message is not in the history yet: the newest page shows it after the saved rows, with its live row.
    const next = await sendScript(client, sessionId, { items: [agentText('G', 'g live', 22)], hang: true });
    const pending = await waitForPage(
      client,
      sessionId,
      (rows) => rows.some((r) => r.id === 'i:G'),
      'the next turn shows live',
    );
    expect(pending.rows.map((row) => [row.id, sourceOf(row)])).toEqual([
      [`m:${runId}`, 'app'],
      ['i:E', 'saved'],
      [`m:${next.runId}`, 'app'],
      ['i:G', 'live'],
    ]);
    await client.call('run.cancel', { sessionId, runId: next.runId });
  }, 120_000);

  it("TL-3 a subagent's live rows are their own timeline, read with parentItemId", async () => {
    const sessionId = await createScriptedSession(client);
    const child = {
      kind: 'agentText',
      itemId: 'k1',
      parentItemId: 'sub1',
      createdAt: 30,
      text: 'inside',
      streaming: false,
    } as const;
    await sendScript(client, sessionId, {
      items: [
        {
          kind: 'subagent',
          itemId: 'sub1',
          parentItemId: null,
          createdAt: 29,
          title: 'helper',
          agentType: null,
          status: 'running',
          result: null,
        },
        child,
      ],
      hang: true,
    });
    const inner = await waitUntil(
      async () => {
        const page = await client.call('sessions.timeline', { sessionId, parentItemId: 'sub1' });
        return page.rows.length > 0 ? page : null;
      },
      'the subagent timeline shows its live row',
      60_000,
    );
    expect(inner.rows.map((row) => row.id)).toEqual(['i:sub1:k1']);
    const outer = await client.call('sessions.timeline', { sessionId });
    expect(outer.rows.map((row) => row.id)).not.toContain('i:sub1:k1');
    expect(itemIdsOf(outer.rows)).toContain('sub1');
  }, 120_000);

  it('TL-1 a live 10 MiB text keeps its whole text in the overlay: the row has a 64 KiB prefix, sessions.itemText the rest', async () => {
    const sessionId = await createScriptedSession(client);
    const bytes = 10 * 1024 * 1024;
    await sendScript(client, sessionId, { bigItem: { itemId: 'huge', bytes }, hang: true });
    const page = await waitForPage(
      client,
      sessionId,
      (rows) => rows.some((r) => r.id === 'i:huge'),
      'the big live row is shown',
    );
    const row = page.rows.find((r) => r.id === 'i:huge')!;
    if (row.kind !== 'rawItem') throw new Error(`expected a raw row, got ${row.kind}`);
    expect([row.source, row.text.truncated, row.text.byteLength, row.text.text.length]).toEqual([
      'live',
      true,
      bytes,
      64 * 1024,
    ]);
    const note = rowNotes.find((n) => n.row.id === 'i:huge');
    expect(note && note.row.kind === 'rawItem' && note.row.text.text.length).toBe(64 * 1024);
    const parts: Buffer[] = [];
    for (let offset = 0; offset < bytes;) {
      const slice = await client.call('sessions.itemText', {
        sessionId,
        itemId: 'huge',
        field: 'text',
        offset,
        length: MAX_COMMAND_OUTPUT_RANGE_BYTES,
      });
      expect(slice.availableBytes).toBe(bytes);
      if (slice.byteCount === 0) break;
      parts.push(Buffer.from(slice.dataBase64, 'base64'));
      offset += slice.byteCount;
    }
    expect(Buffer.concat(parts).toString('utf8') === bigText(bytes)).toBe(true);
    await expect(
      client.call('sessions.itemText', { sessionId, itemId: 'huge', field: 'result', offset: 0, length: 10 }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      client.call('sessions.itemText', { sessionId, itemId: 'nothing', field: 'text', offset: 0, length: 10 }),
    ).rejects.toMatchObject({ code: 'not_found' });
  }, 120_000);
});
