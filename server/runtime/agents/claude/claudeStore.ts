import crypto from 'node:crypto';
import { conflict } from '../../errors';
import type { Db } from '../../store/database';

export const CONVERSATION_TAKEN_MESSAGE = 'This Claude conversation is already open in another session.';

/** claude_sessions and claude_operations (SES-2, ACC-8): which Claude conversation a session continues, and each message's UUID in it. */
export class ClaudeStore {
  private readonly insertSession;
  private readonly sessionOf;
  private readonly operation;
  private readonly insertOperation;

  constructor(private readonly db: Db) {
    this.insertSession = db.prepare('INSERT INTO claude_sessions (app_session_id, native_session_id) VALUES (?, ?)');
    this.sessionOf = db.prepare<[string], { native_session_id: string }>(
      'SELECT native_session_id FROM claude_sessions WHERE app_session_id = ?',
    );
    this.operation = db.prepare<[string, string], { native_message_id: string; run_id: string; display_text: string }>(
      'SELECT native_message_id, run_id, display_text FROM claude_operations WHERE app_session_id = ? AND operation_id = ?',
    );
    this.insertOperation = db.prepare(
      'INSERT INTO claude_operations (app_session_id, operation_id, native_message_id, run_id, display_text) VALUES (?, ?, ?, ?, ?)',
    );
  }

  /** Links a new app session to a conversation (a new one when none is named); one session per conversation. */
  linkSession(appSessionId: string, nativeSessionId: string = crypto.randomUUID()): void {
    try {
      this.insertSession.run(appSessionId, nativeSessionId.toLowerCase());
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE')
        throw conflict(CONVERSATION_TAKEN_MESSAGE, { claudeSessionId: nativeSessionId });
      throw error;
    }
  }

  /** The app session that has this conversation open (ACC-8). */
  appSessionOf(nativeSessionId: string): string | undefined {
    return this.db
      .prepare<[string], { app_session_id: string }>(
        'SELECT app_session_id FROM claude_sessions WHERE native_session_id = ?',
      )
      .get(nativeSessionId.toLowerCase())?.app_session_id;
  }

  nativeSessionId(appSessionId: string): string | undefined {
    return this.sessionOf.get(appSessionId)?.native_session_id;
  }

  /**
   * Written before the send: the first call fixes the message UUID and run id; a retry gets them
   * back; a retry with another text is a conflict.
   */
  claimOperation(
    appSessionId: string,
    operationId: string,
    runId: string,
    text: string,
  ): { messageUuid: string; runId: string } {
    return this.db.transaction(() => {
      const existing = this.operation.get(appSessionId, operationId);
      if (existing) {
        if (existing.display_text !== text)
          throw conflict('This operation id was already used with a different message.', { operationId });
        return { messageUuid: existing.native_message_id, runId: existing.run_id };
      }
      const messageUuid = crypto.randomUUID();
      this.insertOperation.run(appSessionId, operationId, messageUuid, runId, text);
      return { messageUuid, runId };
    })();
  }
}
