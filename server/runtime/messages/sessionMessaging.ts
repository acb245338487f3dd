import type { Approval, ApprovalDecision, SessionAgentSettings } from '../../../lib/protocol/agents';
import type { AgentKind, Project } from '../../../lib/protocol/rows';
import type { ApprovalRequests } from '../agents/approvals';
import { diskFull, invalidParams, notFound } from '../errors';
import type { SessionMessages } from '../sendLedger/sessionMessages';
import type { RunScheduler } from '../sessions/runScheduler';
import type { SessionStore } from '../sessions/sessionStore';
import type { SessionToolAnswer, SessionToolRequest } from './sessionToolProtocol';

/** The agents whose sessions send and take messages (MSG-1): a shell would run the text as a command. */
const MESSAGING_AGENTS: ReadonlySet<AgentKind> = new Set(['codex', 'claude']);

/** How long the first line of a message in its approval card may be. */
const APPROVAL_LINE_CHARS = 200;

export interface SessionMessagingDeps {
  sessions: SessionStore;
  messages: SessionMessages;
  scheduler: RunScheduler;
  approvals: ApprovalRequests;
  projects: readonly Project[];
  settingsOf(sessionId: string): SessionAgentSettings;
  /** Sessions being deleted: they neither send nor take messages. */
  isDeleting(sessionId: string): boolean;
  /** False when the disk is full: new work is refused. */
  hasDiskRoom(): boolean;
}

/**
 * The session tools' calls (MSG-1…MSG-4): the desktop's sessions as a tool lists them, a message
 * queued with its record and handed on or asked about, and the person's answer to that question.
 */
export class SessionMessaging {
  constructor(private readonly deps: SessionMessagingDeps) {}

  /** What the tool server of `sessionId` asked for. */
  handle(sessionId: string, request: SessionToolRequest): SessionToolAnswer {
    if (!this.deps.sessions.session(sessionId) || this.deps.isDeleting(sessionId))
      throw notFound('The session that asked no longer exists.', { sessionId });
    if (request.tool === 'list_sessions') return { ok: true, sessions: this.listFor(sessionId) };
    return { ok: true, ...this.send(sessionId, request.callId, request.sessionId, request.text) };
  }

  private listFor(sessionId: string) {
    const projectName = (id: string) => this.deps.projects.find((p) => p.id === id)?.name ?? '';
    return this.deps.sessions
      .sessions()
      .filter((s) => MESSAGING_AGENTS.has(s.agent) && !this.deps.isDeleting(s.id))
      .map((s) => ({
        id: s.id,
        title: s.title,
        agent: s.agent,
        project: projectName(s.projectId),
        self: s.id === sessionId,
      }));
  }

  private send(senderSessionId: string, callId: string, recipientSessionId: string, text: string) {
    const { sessions, messages, scheduler } = this.deps;
    if (recipientSessionId === senderSessionId) throw invalidParams('A session cannot send a message to itself.');
    const recipient = sessions.session(recipientSessionId);
    if (!recipient || this.deps.isDeleting(recipientSessionId))
      throw notFound(`No session has the id ${recipientSessionId}; list_sessions lists them.`, {
        sessionId: recipientSessionId,
      });
    if (!MESSAGING_AGENTS.has(recipient.agent))
      throw invalidParams(
        `Session ${recipientSessionId} is a ${recipient.agent} session; only Codex and Claude sessions take messages.`,
      );
    if (!this.deps.hasDiskRoom()) throw diskFull();
    const outcome = messages.send({
      senderSessionId,
      senderCallId: callId,
      senderRunId: scheduler.runningRunOf(senderSessionId),
      recipientSessionId,
      text,
      needsApproval: this.deps.settingsOf(recipientSessionId).messages?.needApproval === true,
    });
    const run = outcome.created;
    if (run && outcome.record.delivery === 'sent') scheduler.enqueue(run);
    if (run && outcome.record.delivery === 'needs-approval') {
      scheduler.publishRun(run.id);
      const sender = sessions.session(senderSessionId)!;
      const firstLine = text.split('\n', 1)[0]!.slice(0, APPROVAL_LINE_CHARS);
      this.deps.approvals.askAboutMessage({
        sessionId: recipientSessionId,
        runId: run.id,
        command: firstLine,
        reason: `The agent of session "${sender.title}" sent this message. Deliver hands it to this session's agent; Decline drops it.`,
        detail: firstLine === text ? null : text,
      });
    }
    return { operationId: outcome.record.operationId, delivery: outcome.record.delivery, hop: outcome.record.hop };
  }

  /** MSG-4: run.cancel of a message still held for approval declines it, as its card's Decline does. */
  declineHeld(sessionId: string, runId: string): void {
    const held = this.deps.approvals
      .pending(sessionId)
      .find((a) => a.kind === 'message' && a.runId === runId && a.decision === null && !a.expired);
    if (held) this.answerApproval(sessionId, held, 'decline');
  }

  /**
   * MSG-4: the person answered a message's approval; the first answer wins (ACC-4), and the
   * message is then handed on once or ends declined, in the same transaction as the answer.
   */
  answerApproval(sessionId: string, approval: Approval, decision: ApprovalDecision): Approval {
    if (decision === 'acceptForSession')
      throw invalidParams('A message is allowed one at a time: answer accept or decline.');
    const { sessions, messages, approvals } = this.deps;
    const run = sessions.run(approval.runId);
    if (!run) throw notFound('The message of this approval is gone.', { approvalId: approval.id });
    const answered = sessions.db.transaction(() => {
      const answer = approvals.answer(sessionId, approval.id, decision);
      messages.decide(sessionId, run.operationId, decision === 'accept' ? 'sent' : 'declined');
      return answer;
    })();
    if (decision === 'accept') this.deps.scheduler.enqueue(sessions.run(run.id)!);
    else this.deps.scheduler.publishRun(run.id);
    return answered;
  }
}
