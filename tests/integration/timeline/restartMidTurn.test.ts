import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { NotificationParams } from '../../../lib/protocol/notifications';
import type { TimelineRow } from '../../../lib/protocol/rows';
import { writeHistory } from '../../fixtures/scriptedAgent';
import {
  agentText,
  createScriptedSession,
  duplicateIds,
  sendScript,
  startScriptedRuntime,
  type ScriptedRuntime,
} from '../../fixtures/scriptedAgentSessions';
import { waitUntil } from '../../fixtures/waitUntil';

const liveIds = (rows: readonly TimelineRow[]) =>
  rows.filter((row) => 'source' in row && row.source === 'live').map((row) => row.id);
const itemIdsOf = (rows: readonly TimelineRow[]) => rows.flatMap((row) => ('itemId' in row ? [row.itemId] : []));

describe('TL-3 a runtime killed in the middle of a turn', () => {
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

  it('TL-3 keeps the rows shown before the kill, keeps the revision growing, and reconciles without duplicates', async () => {
    const sessionId = await createScriptedSession(client);
    const { runId, operationId } = await sendScript(client, sessionId, {
      items: [agentText('P', 'p live', 40), agentText('Q', 'q live', 41), agentText('R', 'r live', 42)],
      hang: true,
    });
    const before = await waitUntil(
      async () => {
        const page = await client.call('sessions.timeline', { sessionId });
        return liveIds(page.rows).length === 3 ? page : null;
      },
      'the three live rows are shown',
      60_000,
    );
    const shown = before.rows.map((row) => row.id);
    expect(shown).toEqual([`m:${runId}`, 'i:P', 'i:Q', 'i:R']);

    await scripted.runtime.kill();
    client.close();
    await scripted.restart();
    client = await scripted.runtime.connect();

    // The history does not have the turn yet: what was shown is shown, from the overlay.
    const after = await client.call('sessions.timeline', { sessionId });
    expect(after.rows.map((row) => row.id)).toEqual(shown);
    expect(liveIds(after.rows)).toEqual(['i:P', 'i:Q', 'i:R']);
    expect(after.revision).toBeGreaterThanOrEqual(before.revision!);

    // A new live row after the restart gets a newer revision than anything before the kill.
    const rows: NotificationParams<'timeline.row'>[] = [];
    client.onNotification('timeline.row', (params) => rows.push(params));
    const other = await createScriptedSession(client);
    await sendScript(client, other, { items: [agentText('N', 'new', 50)], hang: true });
    const fresh = await waitUntil(() => rows.find((n) => n.row.id === 'i:N'), 'the new live row is published', 60_000);
    expect(fresh.revision).toBeGreaterThan(before.revision!);

    // The agent's history gets the turn: saved rows replace the live ones, R (not saved) goes.
    writeHistory(scripted.historyDir, sessionId, null, [
      { kind: 'user', itemId: 'u1', text: 'the script', createdAt: Date.now(), clientId: operationId },
      { kind: 'item', item: agentText('P', 'p saved', 40) },
      { kind: 'item', item: agentText('Q', 'q saved', 41) },
      { kind: 'item', item: agentText('S', 's saved', 43) },
    ]);
    const reconciled = await waitUntil(
      async () => {
        const page = await client.call('sessions.timeline', { sessionId });
        return liveIds(page.rows).length === 0 ? page : null;
      },
      'the saved turn replaces the live rows after the restart',
      120_000,
    );
    expect(reconciled.rows.map((row) => row.id)).toEqual([`m:${runId}`, 'i:P', 'i:Q', 'i:S']);
    expect(duplicateIds(reconciled.rows)).toEqual([]);
    const itemIds = itemIdsOf(reconciled.rows);
    expect(new Set(itemIds).size).toBe(itemIds.length);
    expect(reconciled.revision).toBeGreaterThan(fresh.revision!);

    // Reconciled for good: another restart shows the same rows, none live.
    client.close();
    await scripted.restart();
    client = await scripted.runtime.connect();
    const final = await client.call('sessions.timeline', { sessionId });
    expect(final.rows.map((row) => row.id)).toEqual([`m:${runId}`, 'i:P', 'i:Q', 'i:S']);
    expect(final.revision).toBeGreaterThanOrEqual(reconciled.revision!);
  }, 300_000);
});
