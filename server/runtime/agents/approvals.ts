import crypto from 'node:crypto';
import type { Approval, ApprovalAsk, ApprovalDecision } from '../../../lib/protocol/agents';
import { conflict, notFound } from '../errors';

interface Pending {
  approval: Approval;
  answer: (decision: Approval['decision'], answers?: Approval['answers']) => void;
}

type AskRequest = { sessionId: string; runId: string } & Pick<ApprovalAsk, 'command' | 'reason'> & Partial<ApprovalAsk>;

/** The first answer: the decision, and for a question the user's answers by question id. */
export interface ApprovalOutcome {
  decision: Exclude<Approval['decision'], null>;
  answers: Approval['answers'];
}

/**
 * Commands an agent asks permission for, waiting for an answer from any device. Held in memory:
 * an approval lives only as long as the agent's turn that asked for it.
 */
export class ApprovalRequests {
  private readonly byId = new Map<string, Pending>();
  /** Answered approvals, kept so a second device's late answer gets a clear conflict. */
  private readonly answered = new Map<string, Approval>();

  constructor(private readonly publish: (approval: Approval) => void) {}

  /** Asks; resolves with the first device's answer, or `cancel` when the signal aborts first. */
  ask(request: AskRequest, signal: AbortSignal): Promise<Exclude<Approval['decision'], null>> {
    return this.askForAnswers(request, signal).then((outcome) => outcome.decision);
  }

  /** Like `ask`, with the answers a `question` approval got (ACC-4). */
  askForAnswers(request: AskRequest, signal: AbortSignal): Promise<ApprovalOutcome> {
    const approval: Approval = {
      id: crypto.randomUUID(),
      kind: 'command',
      detail: null,
      questions: [],
      suggestions: [],
      ...request,
      createdAt: Date.now(),
      decision: null,
      answers: null,
      expired: null,
    };
    return new Promise((resolve) => {
      const settle = (decision: Approval['decision'], answers: Approval['answers'] = null) => {
        const pending = this.byId.get(approval.id);
        if (!pending || pending.approval.decision !== null) return;
        pending.approval = { ...pending.approval, decision, answers };
        signal.removeEventListener('abort', onAbort);
        this.publish(pending.approval);
        this.byId.delete(approval.id);
        this.answered.set(approval.id, pending.approval);
        resolve({ decision: decision ?? 'cancel', answers });
      };
      const onAbort = () => settle('cancel');
      this.byId.set(approval.id, { approval, answer: settle });
      this.publish(approval);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  pending(sessionId: string): Approval[] {
    return [...this.byId.values()].map((p) => p.approval).filter((a) => a.sessionId === sessionId);
  }

  answer(sessionId: string, approvalId: string, decision: ApprovalDecision, answers?: Approval['answers']): Approval {
    const pending = this.byId.get(approvalId);
    if (!pending || pending.approval.sessionId !== sessionId) {
      const done = this.answered.get(approvalId);
      if (done && done.sessionId === sessionId) throw conflict('This approval was already answered.', { approvalId, decision: done.decision });
      throw notFound('No such approval in this session.', { approvalId });
    }
    pending.answer(decision, answers ?? null);
    return this.answered.get(approvalId)!;
  }

  forgetSession(sessionId: string): void {
    for (const [id, approval] of this.answered) if (approval.sessionId === sessionId) this.answered.delete(id);
  }
}
