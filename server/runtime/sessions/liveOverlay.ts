import { z } from 'zod';
import type { AgentItem } from '../../../lib/protocol/rows';
import { storageError } from '../errors';
import type { Db } from '../store/database';
import { parseJsonWith } from '../../../lib/shared/parseJsonWith';

/** One live item of one run, whole (long texts are cut only on the wire), with the revision it was last written at. */
export interface LiveEntry {
  runId: string;
  item: AgentItem;
  revision: number;
}

/** An item's JSON in SQLite: ours, but read back through a schema so a damaged row is skipped, not a crash later. */
const StoredItemSchema = z.looseObject({ itemId: z.string(), kind: z.string() });

interface RawItem {
  run_id: string;
  revision: number;
  item_json: string;
}

/** The timeline an item belongs to: the session's own (its id) or a subagent's (the subagent's item id). */
export const targetOf = (sessionId: string, parentItemId: string | null) => parentItemId ?? sessionId;

const MAX_REVISION = Number.MAX_SAFE_INTEGER;

/**
 * The live overlay in SQLite (TL-3): per app session and timeline target its live items as JSON,
 * every write stamped from one global revision counter that only grows, and the pending cleanups
 * of ended runs. Writes are synchronous transactions; a cache spares re-reading the JSON.
 */
export class LiveOverlayStore {
  private readonly stmts;
  private readonly cache = new Map<string, LiveEntry[]>();

  constructor(readonly db: Db) {
    this.stmts = {
      revision: db.prepare<[], { revision: number }>(
        'SELECT revision FROM chat_live_timeline_overlay_revisions WHERE singleton = 1',
      ),
      bump: db.prepare<[], { revision: number }>(
        'UPDATE chat_live_timeline_overlay_revisions SET revision = revision + 1 WHERE singleton = 1 RETURNING revision',
      ),
      items: db.prepare<[string, string], RawItem>(
        'SELECT run_id, revision, item_json FROM chat_live_timeline_overlay_items WHERE app_session_id = ? AND timeline_target_id = ? ORDER BY position',
      ),
      targetsOfSession: db.prepare<[string], { timeline_target_id: string }>(
        'SELECT timeline_target_id FROM chat_live_timeline_overlays WHERE app_session_id = ?',
      ),
      targetsOfRun: db.prepare<[string, string], { timeline_target_id: string }>(
        'SELECT DISTINCT timeline_target_id FROM chat_live_timeline_overlay_items WHERE app_session_id = ? AND run_id = ?',
      ),
      runs: db.prepare<[], { app_session_id: string; run_id: string }>(
        'SELECT DISTINCT app_session_id, run_id FROM chat_live_timeline_overlay_items',
      ),
      writeTarget: db.prepare(
        `INSERT INTO chat_live_timeline_overlays (app_session_id, timeline_target_id, revision) VALUES (?, ?, ?)
         ON CONFLICT (app_session_id, timeline_target_id) DO UPDATE SET revision = excluded.revision`,
      ),
      writeItem: db.prepare(
        `INSERT INTO chat_live_timeline_overlay_items (app_session_id, timeline_target_id, item_id, run_id, revision, position, item_json)
         VALUES (@sessionId, @target, @itemId, @runId, @revision,
           (SELECT COALESCE(MAX(position), 0) + 1 FROM chat_live_timeline_overlay_items WHERE app_session_id = @sessionId AND timeline_target_id = @target), @json)
         ON CONFLICT (app_session_id, timeline_target_id, item_id) DO UPDATE SET run_id = excluded.run_id, revision = excluded.revision, item_json = excluded.item_json`,
      ),
      dropRunItems: db.prepare(
        'DELETE FROM chat_live_timeline_overlay_items WHERE app_session_id = ? AND timeline_target_id = ? AND run_id = ?',
      ),
      dropTarget: db.prepare(
        'DELETE FROM chat_live_timeline_overlays WHERE app_session_id = ? AND timeline_target_id = ?',
      ),
      addCleanup: db.prepare(
        'INSERT OR IGNORE INTO chat_pending_terminal_overlay_cleanups (app_session_id, run_id, created_at) VALUES (?, ?, ?)',
      ),
      cleanups: db.prepare<[], { app_session_id: string; run_id: string }>(
        'SELECT app_session_id, run_id FROM chat_pending_terminal_overlay_cleanups ORDER BY created_at',
      ),
      deleteCleanup: db.prepare(
        'DELETE FROM chat_pending_terminal_overlay_cleanups WHERE app_session_id = ? AND run_id = ?',
      ),
    };
  }

  /** The revision of the newest overlay write; every row read now is at most this new. */
  revision(): number {
    return this.stmts.revision.get()!.revision;
  }

  private nextRevision(): number {
    try {
      return this.stmts.bump.get()!.revision;
    } catch (error) {
      // The CHECK constraint stops the counter at 2^53 - 1 instead of wrapping (TL-3).
      throw storageError(`The live timeline revision reached its limit of ${MAX_REVISION}.`, {
        reason: 'revision_exhausted',
        cause: (error as Error).message,
      });
    }
  }

  entries(sessionId: string, target: string): readonly LiveEntry[] {
    const key = `${sessionId}\u0000${target}`;
    let entries = this.cache.get(key);
    if (!entries) {
      entries = this.stmts.items.all(sessionId, target).flatMap(toEntry);
      this.cache.set(key, entries);
    }
    return entries;
  }

  /** Targets of a session that hold live rows. */
  targets(sessionId: string): string[] {
    return this.stmts.targetsOfSession.all(sessionId).map((r) => r.timeline_target_id);
  }

  find(sessionId: string, target: string, itemId: string): LiveEntry | undefined {
    return this.entries(sessionId, target).find((entry) => entry.item.itemId === itemId);
  }

  /** Writes one item's state in place (by itemId) and answers the revision it was written at. */
  upsert(sessionId: string, runId: string, item: AgentItem): number {
    const target = targetOf(sessionId, item.parentItemId);
    return this.db.transaction(() => {
      const revision = this.nextRevision();
      const entries = [...this.entries(sessionId, target)];
      this.stmts.writeTarget.run(sessionId, target, revision);
      this.stmts.writeItem.run({ sessionId, target, itemId: item.itemId, runId, revision, json: JSON.stringify(item) });
      const index = entries.findIndex((entry) => entry.item.itemId === item.itemId);
      const entry = { runId, item, revision };
      if (index === -1) entries.push(entry);
      else entries[index] = entry;
      this.cache.set(`${sessionId}\u0000${target}`, entries);
      return revision;
    })();
  }

  /** Removes a run's items from one target (its saved history took over) and answers the revision of that write. */
  removeRun(sessionId: string, target: string, runId: string): { revision: number; removed: LiveEntry[] } {
    return this.db.transaction(() => {
      const revision = this.nextRevision();
      const entries = this.entries(sessionId, target);
      const kept = entries.filter((entry) => entry.runId !== runId);
      this.stmts.dropRunItems.run(sessionId, target, runId);
      if (kept.length === 0) this.stmts.dropTarget.run(sessionId, target);
      else this.stmts.writeTarget.run(sessionId, target, revision);
      this.cache.set(`${sessionId}\u0000${target}`, kept);
      return { revision, removed: entries.filter((entry) => entry.runId === runId) };
    })();
  }

  /** Every target holding items of a run. */
  targetsOfRun(sessionId: string, runId: string): string[] {
    return this.stmts.targetsOfRun.all(sessionId, runId).map((r) => r.timeline_target_id);
  }

  /** Start-up: each (session, run) that still has live rows. */
  runsWithEntries(): { sessionId: string; runId: string }[] {
    return this.stmts.runs.all().map((r) => ({ sessionId: r.app_session_id, runId: r.run_id }));
  }

  addCleanup(sessionId: string, runId: string): void {
    this.stmts.addCleanup.run(sessionId, runId, Date.now());
  }

  cleanups(): { sessionId: string; runId: string }[] {
    return this.stmts.cleanups.all().map((r) => ({ sessionId: r.app_session_id, runId: r.run_id }));
  }

  deleteCleanup(sessionId: string, runId: string): void {
    this.stmts.deleteCleanup.run(sessionId, runId);
  }

  /** The session was deleted (its rows went by cascade): drop what the cache holds of it. */
  forgetSession(sessionId: string): void {
    for (const key of this.cache.keys()) if (key.startsWith(`${sessionId}\u0000`)) this.cache.delete(key);
  }
}

function toEntry(raw: RawItem): LiveEntry[] {
  const item = parseJsonWith(StoredItemSchema, raw.item_json);
  return item ? [{ runId: raw.run_id, revision: raw.revision, item: item as unknown as AgentItem }] : [];
}
