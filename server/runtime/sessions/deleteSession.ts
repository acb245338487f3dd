import type { CommandOutputStore } from '../output/commandOutputStore';
import type { ChatSendLedger } from '../sendLedger/chatSend';
import type { SessionStore } from './sessionStore';

/**
 * STO-4 / OUT-6: one transaction removes the session's catalog rows (their pending appends go by
 * cascade), its idempotency ledger rows and the session row (runs, commands, outbox and the
 * operation identity go by cascade). Files are removed only after the commit; an agent's own
 * transcript is never touched.
 */
export function deleteSessionWithReferences(
  sessions: SessionStore,
  outputs: CommandOutputStore,
  outbox: ChatSendLedger,
  sessionId: string,
): boolean {
  const files = sessions.db
    .transaction(() => {
      if (!sessions.session(sessionId)) return null;
      const names = outputs.catalog.deleteForSession(sessionId);
      outbox.forgetSession(sessionId);
      sessions.deleteSessionRow(sessionId);
      return names;
    })
    .immediate();
  if (files === null) return false;
  outputs.removeFiles(files);
  return true;
}
