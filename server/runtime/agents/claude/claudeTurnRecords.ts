import type { AgentItem } from '../../../../lib/protocol/rows';
import type { Db } from '../../store/database';
import type { HistoryEntry } from '../agent';
import type { MessageAnchor } from './claudeHistory';
import { HostItemSchema } from './hostProtocol';
import { parseJsonWith } from '../../../../lib/shared/parseJsonWith';

function itemOf(json: string): AgentItem | null {
  return parseJsonWith(HostItemSchema, json);
}

/**
 * claude_turn_records (TL-6): each turn's end as the live row showed it, kept by the app because
 * Claude's saved conversation has no turn end, and shown after the turn's last saved message.
 */
export class ClaudeTurnRecords {
  private readonly upsert;
  private readonly byAnchors;

  constructor(db: Db) {
    this.upsert = db.prepare(
      `INSERT INTO claude_turn_records (app_session_id, turn_id, after_message_uuid, item_json) VALUES (?, ?, ?, ?)
       ON CONFLICT (app_session_id, turn_id) DO UPDATE SET after_message_uuid = excluded.after_message_uuid, item_json = excluded.item_json`,
    );
    this.byAnchors = db.prepare<[string, string], { after_message_uuid: string; item_json: string }>(
      `SELECT after_message_uuid, item_json FROM claude_turn_records
       WHERE app_session_id = ? AND after_message_uuid IN (SELECT value FROM json_each(?)) ORDER BY rowid`,
    );
  }

  save(sessionId: string, turnId: string, afterMessageUuid: string, item: AgentItem): void {
    this.upsert.run(sessionId, turnId, afterMessageUuid, JSON.stringify(item));
  }

  /** A page's entries with each record after the message it follows; the page's own entries keep their order. */
  merge(sessionId: string, entries: HistoryEntry[], anchors: MessageAnchor[]): HistoryEntry[] {
    if (anchors.length === 0) return entries;
    const after = new Map<string, AgentItem[]>();
    for (const row of this.byAnchors.all(sessionId, JSON.stringify(anchors.map((a) => a.uuid)))) {
      const item = itemOf(row.item_json);
      if (item) after.set(row.after_message_uuid, [...(after.get(row.after_message_uuid) ?? []), item]);
    }
    if (after.size === 0) return entries;
    const merged: HistoryEntry[] = [];
    let taken = 0;
    for (const anchor of anchors) {
      const records = after.get(anchor.uuid);
      if (!records) continue;
      after.delete(anchor.uuid);
      merged.push(...entries.slice(taken, anchor.index));
      taken = Math.max(taken, anchor.index);
      for (const item of records) merged.push({ kind: 'item', item });
    }
    merged.push(...entries.slice(taken));
    return merged;
  }
}
