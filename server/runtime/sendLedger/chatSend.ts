import crypto from 'node:crypto';
import type { MessageState } from '../../../lib/protocol/rows';
import { conflict, notFound } from '../errors';
import type { RunRecord, SessionStore } from '../sessions/sessionStore';
import type { Db } from '../store/database';

/** How long the outcome of a mutating call is kept for retries (STO-3). */
const IDEMPOTENCY_TTL_MS = 48 * 60 * 60 * 1000;

export interface ChatSendAnswer {
  operationId: string;
  runId: string;
  state: MessageState;
}

export interface ChatSendOutcome {
  answer: ChatSendAnswer;
  /** The run this call created; absent when the call was a retry. */
  created?: RunRecord;
}

/**
 * What a message carries besides its text: its uploads (ATT-1) or the record of the session that
 * sent it (MSG-2). Part of the message's identity, and written for its run inside the accepting
 * transaction.
 */
export interface MessageExtras {
  /** Added to the request fingerprint: a retry with other extras is a conflict. */
  identity: unknown;
  attach(runId: string): void;
}

const chatSendScope = (sessionId: string, operationId: string) => `chat.send\u0000${sessionId}\u0000${operationId}`;

/**
 * `chat.send` made exactly-once (STO-2, STO-3). One transaction claims the operation identity
 * (the fingerprint may only be inserted or kept, never changed), answers a retry from the ledger,
 * or records the run, its outbox entry and the first answer.
 */
export class ChatSendLedger {
  private readonly claim;
  private readonly ledgerGet;
  private readonly ledgerPut;
  private readonly ledgerPurge;
  private readonly ledgerForSession;
  private readonly outboxPut;
  private readonly outboxDelete;
  private readonly outboxAll;
  private readonly accept;

  constructor(
    db: Db,
    private readonly sessions: SessionStore,
  ) {
    this.claim = db.prepare(
      `INSERT INTO chat_outbox_operation_identity (session_id, operation_id, request_fingerprint) VALUES (?, ?, ?)
       ON CONFLICT (session_id, operation_id) DO UPDATE SET request_fingerprint = excluded.request_fingerprint
       WHERE request_fingerprint = excluded.request_fingerprint`,
    );
    this.ledgerGet = db.prepare<[string, number], { response_json: string }>(
      'SELECT response_json FROM remote_rpc_idempotency WHERE scope_key = ? AND expires_at > ?',
    );
    this.ledgerPut = db.prepare(
      `INSERT INTO remote_rpc_idempotency (scope_key, session_id, request_fingerprint, response_json, expires_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (scope_key) DO UPDATE SET request_fingerprint = excluded.request_fingerprint,
         response_json = excluded.response_json, expires_at = excluded.expires_at`,
    );
    this.ledgerPurge = db.prepare('DELETE FROM remote_rpc_idempotency WHERE expires_at <= ?');
    this.ledgerForSession = db.prepare('DELETE FROM remote_rpc_idempotency WHERE session_id = ?');
    this.outboxPut = db.prepare(
      'INSERT INTO chat_outbox (session_id, operation_id, run_id, queued_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
    );
    this.outboxDelete = db.prepare('DELETE FROM chat_outbox WHERE run_id = ?');
    // MSG-4: a session message waiting for the person's approval is not handed on at start-up.
    this.outboxAll = db.prepare<[], { run_id: string }>(
      `SELECT o.run_id FROM chat_outbox o JOIN runs r ON r.id = o.run_id
       WHERE NOT EXISTS (SELECT 1 FROM chat_session_messages m WHERE m.operation_id = o.operation_id AND m.recipient_session_id = o.session_id AND m.delivery <> 'sent')
       ORDER BY r.session_id, r.seq`,
    );
    this.accept = db.transaction(
      (
        sessionId: string,
        operationId: string,
        text: string,
        now: number,
        extras: MessageExtras | undefined,
      ): ChatSendOutcome => {
        // ATT-1: the attachments are part of the message: a retry with others is a conflict. Without any, the fingerprint is as before.
        const request = extras ? ['chat.send', sessionId, text, extras.identity] : ['chat.send', sessionId, text];
        const fingerprint = crypto.createHash('sha256').update(JSON.stringify(request)).digest();
        if (this.claim.run(sessionId, operationId, fingerprint).changes !== 1) {
          throw conflict('This operation id was already used with a different message.', { operationId });
        }
        const scope = chatSendScope(sessionId, operationId);
        const stored = this.ledgerGet.get(scope, now);
        if (stored) return { answer: JSON.parse(stored.response_json) as ChatSendAnswer };
        const existing = this.sessions.runByOperation(sessionId, operationId);
        if (existing) {
          // Older than the ledger keeps: the run itself still answers.
          return { answer: { operationId, runId: existing.id, state: existing.state } };
        }
        const run = this.sessions.insertRun(sessionId, operationId, text);
        extras?.attach(run.id);
        this.outboxPut.run(sessionId, operationId, run.id, now);
        const answer: ChatSendAnswer = { operationId, runId: run.id, state: run.state };
        this.ledgerPut.run(scope, sessionId, fingerprint, JSON.stringify(answer), now + IDEMPOTENCY_TTL_MS);
        return { answer, created: run };
      },
    );
  }

  acceptChatMessage(sessionId: string, operationId: string, text: string, extras?: MessageExtras): ChatSendOutcome {
    if (!this.sessions.session(sessionId)) throw notFound('No such session.', { sessionId });
    return this.accept.immediate(sessionId, operationId, text, Date.now(), extras);
  }

  /** The run was handed to its agent: its outbox entry is done. */
  delivered(runId: string): void {
    this.outboxDelete.run(runId);
  }

  /** Runs accepted but never handed to their agent, in order (re-delivered at start-up). */
  undelivered(): string[] {
    return this.outboxAll.all().map((r) => r.run_id);
  }

  /** Drops a session's ledger rows; call inside the session delete transaction (STO-4). */
  forgetSession(sessionId: string): void {
    this.ledgerForSession.run(sessionId);
  }

  purgeExpired(now = Date.now()): number {
    return this.ledgerPurge.run(now).changes;
  }
}
