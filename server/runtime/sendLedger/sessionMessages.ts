import crypto from 'node:crypto';
import type { SessionMessageDelivery } from '../../../lib/protocol/rows';
import { conflict, notFound, RuntimeError } from '../errors';
import type { SessionStore } from '../sessions/sessionStore';
import type { Db } from '../store/database';
import type { ChatSendLedger, ChatSendOutcome } from './chatSend';

/** How many messages one chain of sessions may pass on before the next is refused (MSG-3). */
export const DEFAULT_MAX_MESSAGE_HOPS = 4;

export interface SessionMessageRecord {
  operationId: string;
  recipientSessionId: string;
  senderSessionId: string;
  senderCallId: string;
  senderRunId: string | null;
  chainId: string;
  hop: number;
  delivery: SessionMessageDelivery;
  createdAt: number;
}

export interface SessionMessageRequest {
  senderSessionId: string;
  /** The tool call's own id: a retry of the call carries the same one (MSG-2). */
  senderCallId: string;
  /** The sender's turn that called the tool, when one runs: a message it was started by makes the chain (MSG-3). */
  senderRunId: string | null;
  recipientSessionId: string;
  /** The text the recipient's agent is given. */
  text: string;
  /** The recipient's setting (MSG-4): the run waits for the person's approval before it is handed on. */
  needsApproval: boolean;
}

export interface SessionMessageOutcome extends ChatSendOutcome {
  record: SessionMessageRecord;
}

interface RawRecord {
  operation_id: string;
  recipient_session_id: string;
  sender_session_id: string;
  sender_call_id: string;
  sender_run_id: string | null;
  chain_id: string;
  hop: number;
  delivery: SessionMessageDelivery;
  created_at: number;
}

const toRecord = (r: RawRecord): SessionMessageRecord => ({
  operationId: r.operation_id,
  recipientSessionId: r.recipient_session_id,
  senderSessionId: r.sender_session_id,
  senderCallId: r.sender_call_id,
  senderRunId: r.sender_run_id,
  chainId: r.chain_id,
  hop: r.hop,
  delivery: r.delivery,
  createdAt: r.created_at,
});

/** The operation id of a session message: one per sender session and call, so a retried call is the same operation (MSG-2). */
export function sessionMessageOperationId(senderSessionId: string, senderCallId: string): string {
  return `msg-${crypto.createHash('sha256').update(`${senderSessionId}\u0000${senderCallId}`).digest('hex').slice(0, 32)}`;
}

/** MSG-3: a chain of messages between sessions reached its limit; the tool answers with this error. */
export const hopLimit = (maxHops: number) =>
  new RuntimeError(
    'conflict',
    `This message would be hop ${maxHops + 1} of a chain of messages between sessions; at most ${maxHops} are allowed, so it was not sent. Answer in this session instead.`,
    {
      reason: 'hop_limit',
      maxHops,
    },
  );

/**
 * chat_session_messages (MSG-1…MSG-5): messages that an agent in one session sent to another.
 * The record is inserted by the outbox's own accepting transaction (MSG-2), so the recipient's run,
 * its outbox entry and the record are written together or not at all.
 */
export class SessionMessages {
  private readonly stmts;
  private readonly decideTx;

  constructor(
    db: Db,
    private readonly outbox: ChatSendLedger,
    private readonly sessions: SessionStore,
    readonly maxHops = DEFAULT_MAX_MESSAGE_HOPS,
  ) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO chat_session_messages (operation_id, recipient_session_id, sender_session_id, sender_call_id, sender_run_id, chain_id, hop, delivery, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (operation_id) DO NOTHING`,
      ),
      byOperation: db.prepare<[string], RawRecord>('SELECT * FROM chat_session_messages WHERE operation_id = ?'),
      byCall: db.prepare<[string, string], RawRecord>(
        'SELECT * FROM chat_session_messages WHERE sender_session_id = ? AND sender_call_id = ?',
      ),
      setDelivery: db.prepare(
        "UPDATE chat_session_messages SET delivery = ? WHERE operation_id = ? AND recipient_session_id = ? AND delivery = 'needs-approval'",
      ),
      waiting: db.prepare<[string], RawRecord>(
        "SELECT * FROM chat_session_messages WHERE recipient_session_id = ? AND delivery = 'needs-approval' ORDER BY created_at",
      ),
    };
    this.decideTx = db.transaction(
      (recipientSessionId: string, operationId: string, delivery: 'sent' | 'declined'): SessionMessageRecord => {
        if (this.stmts.setDelivery.run(delivery, operationId, recipientSessionId).changes !== 1) {
          const record = this.stmts.byOperation.get(operationId);
          if (!record || record.recipient_session_id !== recipientSessionId)
            throw notFound('No such message in this session.', { operationId });
          throw conflict(`This message was already ${record.delivery === 'sent' ? 'approved' : 'declined'}.`, {
            operationId,
            delivery: record.delivery,
          });
        }
        const run = this.sessions.runByOperation(recipientSessionId, operationId);
        if (delivery === 'declined' && run) {
          // A declined message is never handed on: its queue entry goes and its run ends cancelled.
          this.outbox.delivered(run.id);
          this.sessions.setRunState(run.id, 'cancelled');
        }
        return toRecord(this.stmts.byOperation.get(operationId)!);
      },
    );
  }

  /** The message that started the run of `operationId` in `sessionId`, if a session sent it. */
  record(operationId: string): SessionMessageRecord | undefined {
    const raw = this.stmts.byOperation.get(operationId);
    return raw && toRecord(raw);
  }

  /**
   * Queues `request.text` as a run of the recipient with its record, once per sender call (MSG-2).
   * The hop is one more than the message that started the sender's turn; past `maxHops` nothing
   * is written and the call fails with `hop_limit` (MSG-3).
   */
  send(request: SessionMessageRequest, now = Date.now()): SessionMessageOutcome {
    const operationId = sessionMessageOperationId(request.senderSessionId, request.senderCallId);
    const previous = this.stmts.byCall.get(request.senderSessionId, request.senderCallId);
    const starter = previous ? undefined : this.starterOf(request.senderSessionId, request.senderRunId);
    const hop = previous?.hop ?? (starter ? starter.hop + 1 : 1);
    if (hop > this.maxHops) throw hopLimit(this.maxHops);
    const fresh: SessionMessageRecord = previous
      ? toRecord(previous)
      : {
          operationId,
          recipientSessionId: request.recipientSessionId,
          senderSessionId: request.senderSessionId,
          senderCallId: request.senderCallId,
          senderRunId: request.senderRunId,
          chainId: starter?.chainId ?? crypto.randomUUID(),
          hop,
          delivery: request.needsApproval ? 'needs-approval' : 'sent',
          createdAt: now,
        };
    const outcome = this.outbox.acceptChatMessage(request.recipientSessionId, operationId, request.text, {
      identity: ['session-message', request.senderSessionId, request.senderCallId],
      attach: () => {
        // A row with the same operation id stays as it is.
        this.stmts.insert.run(
          fresh.operationId,
          fresh.recipientSessionId,
          fresh.senderSessionId,
          fresh.senderCallId,
          fresh.senderRunId,
          fresh.chainId,
          fresh.hop,
          fresh.delivery,
          fresh.createdAt,
        );
      },
    });
    return { ...outcome, record: this.record(operationId) ?? fresh };
  }

  /** MSG-4: the person approved (`sent`) or declined a message waiting in `recipientSessionId`; the first answer wins. */
  decide(recipientSessionId: string, operationId: string, delivery: 'sent' | 'declined'): SessionMessageRecord {
    return this.decideTx.immediate(recipientSessionId, operationId, delivery);
  }

  /** Messages waiting for the person's approval in a session, oldest first (MSG-4). */
  waiting(recipientSessionId: string): SessionMessageRecord[] {
    return this.stmts.waiting.all(recipientSessionId).map(toRecord);
  }

  private starterOf(senderSessionId: string, senderRunId: string | null): SessionMessageRecord | undefined {
    const run = senderRunId ? this.sessions.run(senderRunId) : undefined;
    if (!run || run.sessionId !== senderSessionId) return undefined;
    const record = this.record(run.operationId);
    return record && record.recipientSessionId === senderSessionId ? record : undefined;
  }
}
