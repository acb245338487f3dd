import crypto from 'node:crypto';
import { z } from 'zod';
import {
  ApprovalQuestionSchema,
  type Approval,
  type ApprovalAsk,
  type ApprovalDecision,
} from '../../../lib/protocol/agents';
import { conflict, invalidParams, notFound } from '../errors';
import type { Db } from '../store/database';

type Decided = Exclude<Approval['decision'], null>;

/** What a device answered: the decision, and for questions the chosen answers by question id. */
export interface ApprovalOutcome {
  decision: Decided;
  answers: Record<string, string[]> | null;
}

export type ApprovalRequest = { sessionId: string; runId: string } & Pick<ApprovalAsk, 'command' | 'reason'> &
  Partial<ApprovalAsk>;

/** The abort reason the run scheduler gives every run when the runtime shuts down. */
const SHUTDOWN_REASON = 'shutdown';

/** Why an approval can no longer be answered after a restart (ACC-4). */
export const EXPIRED_BY_RESTART =
  'The runtime restarted, so the agent that asked is gone. Send the message again to retry.';

interface RawApproval {
  id: string;
  session_id: string;
  run_id: string;
  kind: Approval['kind'];
  item_id: string | null;
  command: string;
  reason: string | null;
  detail: string | null;
  questions: string;
  suggestions: string;
  created_at: number;
  decision: Approval['decision'];
  answers: string | null;
  expired: string | null;
}

const QuestionsJson = z.array(ApprovalQuestionSchema);
const StringsJson = z.array(z.string());
const AnswersJson = z.record(z.string(), z.array(z.string()));

function toApproval(r: RawApproval): Approval {
  return {
    id: r.id,
    sessionId: r.session_id,
    runId: r.run_id,
    kind: r.kind,
    itemId: r.item_id,
    command: r.command,
    reason: r.reason,
    detail: r.detail,
    questions: QuestionsJson.parse(JSON.parse(r.questions)),
    suggestions: StringsJson.parse(JSON.parse(r.suggestions)),
    createdAt: r.created_at,
    decision: r.decision,
    answers: r.answers === null ? null : AnswersJson.parse(JSON.parse(r.answers)),
    expired: r.expired,
  };
}

/** How long an expired approval stays listed, so every device sees why it went away. */
const EXPIRED_LISTED_MS = 24 * 60 * 60 * 1000;

/**
 * What agents ask before they go on (ACC-4), stored in SQLite so every device and every reload
 * sees it. The first answer wins in one conditional UPDATE; any later one is `conflict`. The
 * agent's wait lives in memory: when the process that asked is gone (a restart), the stored row
 * is marked expired with the reason.
 */
export class ApprovalRequests {
  private readonly waiters = new Map<string, (outcome: ApprovalOutcome) => void>();
  private readonly stmts;

  constructor(
    private readonly db: Db,
    private readonly publish: (approval: Approval) => void,
    /** An agent starts or stops waiting on its person (ACC-3: such a turn is not stalled). */
    private readonly waiting: (request: ApprovalRequest, waiting: boolean) => void = () => {},
  ) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO approvals (id, session_id, run_id, kind, item_id, command, reason, detail, questions, suggestions, created_at)
         VALUES (@id, @sessionId, @runId, @kind, @itemId, @command, @reason, @detail, @questions, @suggestions, @createdAt)`,
      ),
      get: db.prepare<[string], RawApproval>('SELECT * FROM approvals WHERE id = ?'),
      answer: db.prepare(
        'UPDATE approvals SET decision = ?, answers = ?, answered_at = ? WHERE id = ? AND session_id = ? AND decision IS NULL AND expired IS NULL',
      ),
      cancel: db.prepare(
        "UPDATE approvals SET decision = 'cancel', answered_at = ? WHERE id = ? AND decision IS NULL AND expired IS NULL",
      ),
      expire: db.prepare('UPDATE approvals SET expired = ? WHERE id = ? AND decision IS NULL AND expired IS NULL'),
      // MSG-4: a message's approval waits for no process: it survives restarts and runs' ends.
      open: db.prepare<[], RawApproval>(
        "SELECT * FROM approvals WHERE decision IS NULL AND expired IS NULL AND kind <> 'message'",
      ),
      listed: db.prepare<[string, number], RawApproval>(
        'SELECT * FROM approvals WHERE session_id = ? AND decision IS NULL AND (expired IS NULL OR created_at >= ?) ORDER BY created_at, id',
      ),
    };
  }

  /**
   * Start-up: nothing that asked before survives a restart, so every open approval expires with
   * the reason, and devices are told. Returns the items they were about (commands that never ran).
   */
  expireAfterRestart(reason = EXPIRED_BY_RESTART): { runId: string; itemId: string }[] {
    const waited: { runId: string; itemId: string }[] = [];
    for (const raw of this.stmts.open.all()) {
      this.expire(raw.id, reason);
      if (raw.item_id !== null) waited.push({ runId: raw.run_id, itemId: raw.item_id });
    }
    return waited;
  }

  /** The agent process that asked is gone: its open approvals expire with `reason`. */
  expireRun(runId: string, reason: string): void {
    for (const raw of this.stmts.open.all()) if (raw.run_id === runId) this.expire(raw.id, reason);
  }

  private expire(id: string, reason: string): void {
    if (this.stmts.expire.run(reason, id).changes !== 1) return;
    this.waiters.get(id)?.({ decision: 'cancel', answers: null });
    this.waiters.delete(id);
    this.publish(this.approval(id));
  }

  private approval(id: string): Approval {
    return toApproval(this.stmts.get.get(id)!);
  }

  /**
   * MSG-4: asks the person about a message from another session. Nothing waits in memory: the
   * runtime acts on the answer when it comes (`answer`), before or after a restart.
   */
  askAboutMessage(request: Omit<ApprovalRequest, 'kind'>): Approval {
    const id = this.insert({ ...request, kind: 'message' });
    const approval = this.approval(id);
    this.publish(approval);
    return approval;
  }

  private insert(request: ApprovalRequest): string {
    const id = crypto.randomUUID();
    this.stmts.insert.run({
      id,
      sessionId: request.sessionId,
      runId: request.runId,
      kind: request.kind ?? 'command',
      itemId: request.itemId ?? null,
      command: request.command,
      reason: request.reason,
      detail: request.detail ?? null,
      questions: JSON.stringify(request.questions ?? []),
      suggestions: JSON.stringify(request.suggestions ?? []),
      createdAt: Date.now(),
    });
    return id;
  }

  /** Asks; resolves with the first device's decision, or `cancel` when the signal aborts first. */
  async ask(request: ApprovalRequest, signal: AbortSignal): Promise<Decided> {
    return (await this.askForAnswers(request, signal)).decision;
  }

  /** Like `ask`, with the answers to the approval's questions (kind `question`). */
  askForAnswers(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalOutcome> {
    const id = this.insert(request);
    return new Promise((resolve) => {
      const onAbort = () => {
        // A runtime shutting down leaves the question unanswered: it expires, it was not cancelled.
        if (signal.reason === SHUTDOWN_REASON) this.expire(id, EXPIRED_BY_RESTART);
        else if (this.stmts.cancel.run(Date.now(), id).changes === 1) this.publish(this.approval(id));
        settle({ decision: 'cancel', answers: null });
      };
      const settle = (outcome: ApprovalOutcome) => {
        this.waiters.delete(id);
        this.waiting(request, false);
        signal.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      this.waiters.set(id, settle);
      this.waiting(request, true);
      this.publish(this.approval(id));
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Open approvals of a session, and the ones that expired lately (shown with their reason). */
  pending(sessionId: string): Approval[] {
    return this.stmts.listed.all(sessionId, Date.now() - EXPIRED_LISTED_MS).map(toApproval);
  }

  /** The first answer wins; a later one, or one for an expired approval, is `conflict`. */
  answer(
    sessionId: string,
    approvalId: string,
    decision: ApprovalDecision,
    answers?: Record<string, string[]>,
  ): Approval {
    const current = this.stmts.get.get(approvalId);
    if (!current || current.session_id !== sessionId)
      throw notFound('No such approval in this session.', { approvalId });
    if (answers && current.kind !== 'question') throw invalidParams('Only a question takes answers.', { approvalId });
    const stored = decision === 'decline' ? null : (answers ?? null);
    if (
      this.stmts.answer.run(decision, stored && JSON.stringify(stored), Date.now(), approvalId, sessionId).changes !== 1
    ) {
      const done = toApproval(this.stmts.get.get(approvalId)!);
      if (done.expired) throw conflict(`This approval expired: ${done.expired}`, { approvalId, expired: done.expired });
      throw conflict('This approval was already answered.', { approvalId, decision: done.decision });
    }
    const approval = this.approval(approvalId);
    this.waiters.get(approvalId)?.({ decision, answers: approval.answers });
    this.publish(approval);
    return approval;
  }
}
