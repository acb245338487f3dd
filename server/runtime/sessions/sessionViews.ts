import type { Db } from '../store/database';
import type { Viewer } from './sessionActivity';

/**
 * When each device last saw each session (UX-8), kept on the runtime so a device's "done, unread"
 * badges hold across reloads and do not depend on what its browser kept. A session a device has
 * open and in view is seen as it changes: the runtime marks it seen at each change of its list
 * state (a turn ending), so a turn that ends under the person's eyes is never "unread".
 */
export class SessionViews {
  private readonly markSeen;
  /** Sessions open and in view, by viewer, with how many of the viewer's sockets show each. */
  private readonly watching = new Map<string, Map<Viewer, number>>();

  constructor(db: Db) {
    // A later time only: a late answer from a slow socket never makes a session unread again.
    this.markSeen = db.prepare(
      `INSERT INTO session_views (session_id, viewer, seen_at) SELECT id, ?, ? FROM sessions WHERE id = ?
       ON CONFLICT (session_id, viewer) DO UPDATE SET seen_at = MAX(seen_at, excluded.seen_at)`,
    );
  }

  /** The viewer saw the session at `at`; false when there is no such session. */
  seen(sessionId: string, viewer: Viewer, at: number): boolean {
    return this.markSeen.run(viewer, at, sessionId).changes > 0;
  }

  /** The viewer shows the session from now until the returned function is called. */
  watch(sessionId: string, viewer: Viewer): () => void {
    const viewers = this.watching.get(sessionId) ?? new Map<Viewer, number>();
    this.watching.set(sessionId, viewers);
    viewers.set(viewer, (viewers.get(viewer) ?? 0) + 1);
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      const left = (viewers.get(viewer) ?? 1) - 1;
      if (left > 0) viewers.set(viewer, left);
      else viewers.delete(viewer);
      if (viewers.size === 0 && this.watching.get(sessionId) === viewers) this.watching.delete(sessionId);
    };
  }

  /** The session changed at `at`: every viewer showing it now saw the change. */
  changedUnderWatch(sessionId: string, at: number): void {
    for (const viewer of this.watching.get(sessionId)?.keys() ?? []) this.markSeen.run(viewer, at, sessionId);
  }
}
