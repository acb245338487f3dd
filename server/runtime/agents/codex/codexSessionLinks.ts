import type { Db } from '../../store/database';

export interface CodexLink {
  profileId: string;
  threadId: string;
  /** SRC-2: the Codex conversation file the person chose for the session, if they chose one. */
  rolloutPath?: string | null;
}

/** codex_session_links: which Codex thread of which profile an app session continues. */
export class CodexSessionLinks {
  private readonly get;
  private readonly insert;
  private readonly bySession;
  private readonly move;

  constructor(db: Db) {
    this.get = db.prepare<[string], { profile_id: string; codex_thread_id: string; rollout_path: string | null }>(
      "SELECT profile_id, codex_thread_id, rollout_path FROM codex_session_links WHERE app_session_id = ? AND status = 'available'",
    );
    this.insert = db.prepare<[string, string, string, string | null]>(
      "INSERT INTO codex_session_links (app_session_id, profile_id, codex_thread_id, rollout_path, status) VALUES (?, ?, ?, ?, 'available')",
    );
    this.move = db.prepare<[string, string]>(
      "UPDATE codex_session_links SET rollout_path = ? WHERE app_session_id = ? AND status = 'available'",
    );
    this.bySession = db.prepare<[string, string], { app_session_id: string }>(
      "SELECT app_session_id FROM codex_session_links WHERE profile_id = ? AND codex_thread_id = ? AND status = 'available'",
    );
  }

  link(sessionId: string): CodexLink | undefined {
    const row = this.get.get(sessionId);
    return row && { profileId: row.profile_id, threadId: row.codex_thread_id, rolloutPath: row.rollout_path };
  }

  save(sessionId: string, link: CodexLink): void {
    this.insert.run(sessionId, link.profileId, link.threadId, link.rolloutPath ?? null);
  }

  /** SRC-2: the session reads its conversation from this file from now on (chosen again). */
  moveSource(sessionId: string, rolloutPath: string): void {
    this.move.run(rolloutPath, sessionId);
  }

  /** The app session that already continues this thread of this profile, if any (ACC-8). */
  sessionOfThread(profileId: string, threadId: string): string | undefined {
    return this.bySession.get(profileId, threadId)?.app_session_id;
  }
}
