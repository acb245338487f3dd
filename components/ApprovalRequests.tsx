'use client';
import { useCallback, useEffect, useState } from 'react';
import type { RpcClient } from '../lib/client/rpcClient';
import type { Approval, ApprovalDecision } from '../lib/protocol/agents';
import { ApprovalQuestionForm } from './agents/ApprovalQuestionForm';

const ASKS: Record<Approval['kind'], string> = {
  command: 'The agent asks to run:',
  fileChange: 'The agent asks to change files:',
  permissions: 'The agent asks for more permissions:',
  tool: 'The agent asks to use a tool:',
  question: 'The agent asks:',
  message: 'Another session sent a message:',
};

/** Open approvals stay; answered ones go; expired ones stay with their reason until they age out. */
function merge(current: Approval[], approval: Approval): Approval[] {
  const others = current.filter((a) => a.id !== approval.id);
  return approval.decision === null ? [...others, approval] : others;
}

/** A session's approvals, live (ACC-4), and how to answer one. */
export function useApprovals(client: RpcClient | null, sessionId: string) {
  const [approvals, setApprovals] = useState<Approval[]>([]);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!client) return;
    let live = true;
    const stop = client.onNotification('approval.changed', (params) => {
      if (params.sessionId === sessionId) setApprovals((current) => merge(current, params.approval));
    });
    client
      .call('approvals.list', { sessionId })
      .then((result) => live && setApprovals(result.approvals))
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
      stop();
    };
  }, [client, sessionId]);

  const answer = useCallback(
    async (approval: Approval, decision: ApprovalDecision, answers?: Record<string, string[]>) => {
      if (!client) return;
      setError(null);
      try {
        await client.call('approvals.answer', {
          sessionId,
          approvalId: approval.id,
          decision,
          ...(answers ? { answers } : {}),
        });
        setApprovals((current) => current.filter((a) => a.id !== approval.id));
      } catch (e) {
        setError((e as Error).message);
      }
    },
    [client, sessionId],
  );
  return { approvals, error, answer };
}

export type ApprovalsState = ReturnType<typeof useApprovals>;

/** The agent's items that wait for the person's answer (ACC-4): their rows say so, with no timer and no Stop. */
export function waitingItems(approvals: readonly Approval[]): ReadonlySet<string> {
  return new Set(approvals.flatMap((a) => (a.decision === null && !a.expired && a.itemId ? [a.itemId] : [])));
}

export function ApprovalRequests({ client, sessionId }: { client: RpcClient | null; sessionId: string }) {
  return <ApprovalList {...useApprovals(client, sessionId)} />;
}

/**
 * What the session's agent asks before it goes on (ACC-4): a command, a file change with its
 * diff, permissions, a tool, or questions as a small form. Any device can answer; the first
 * answer wins, and the others see the card go when `approval.changed` says it was answered. An
 * approval whose agent is gone shows as expired, with why.
 */
export function ApprovalList({ approvals, error, answer }: ApprovalsState) {
  if (approvals.length === 0 && !error) return null;
  return (
    <>
      {approvals.map((approval) => (
        <div
          key={approval.id}
          className="card"
          data-row="approval"
          data-kind={approval.kind}
          role="group"
          aria-label="Approval request"
        >
          <div className="muted">{ASKS[approval.kind]}</div>
          <div className="mono" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
            {approval.kind === 'command' ? `$ ${approval.command}` : approval.command}
          </div>
          {approval.reason && <div className="muted">{approval.reason}</div>}
          {approval.detail && (
            <pre className="mono approval-detail" aria-label={approval.kind === 'fileChange' ? 'Diff' : 'Details'}>
              {approval.detail}
            </pre>
          )}
          {approval.suggestions.length > 0 && (
            <ul className="muted" aria-label="Suggestions">
              {approval.suggestions.map((s) => (
                <li key={s}>{s}</li>
              ))}
            </ul>
          )}
          {approval.expired ? (
            <p className="error" role="status">
              Expired: {approval.expired}
            </p>
          ) : approval.kind === 'question' ? (
            <ApprovalQuestionForm
              approval={approval}
              onAnswer={(answers) => answer(approval, 'accept', answers)}
              onDecline={() => answer(approval, 'decline')}
            />
          ) : (
            <div className="row" style={{ marginTop: 6, flexWrap: 'wrap' }}>
              <button className="primary" onClick={() => answer(approval, 'accept')}>
                {approval.kind === 'tool' ? 'Allow once' : approval.kind === 'message' ? 'Deliver' : 'Allow'}
              </button>
              {/* MSG-4: a message is let through one at a time. */}
              {approval.kind !== 'message' && (
                <button onClick={() => answer(approval, 'acceptForSession')}>Allow for this session</button>
              )}
              <button onClick={() => answer(approval, 'decline')}>
                {approval.kind === 'tool' ? 'Deny' : 'Decline'}
              </button>
            </div>
          )}
        </div>
      ))}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}
