'use client';
import { useEffect, useState } from 'react';
import type { RpcClient } from '../lib/client/rpcClient';
import type { Approval, ApprovalDecision } from '../lib/protocol/agents';

/**
 * Commands the session's agent asks permission to run. Any device can answer; the others see
 * the request disappear when `approval.changed` says it was answered.
 */
export function ApprovalRequests({ client, sessionId }: { client: RpcClient | null; sessionId: string }) {
  const [approvals, setApprovals] = useState<Approval[]>([]);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!client) return;
    let live = true;
    const stop = client.onNotification('approval.changed', (params) => {
      if (params.sessionId !== sessionId) return;
      const approval = params.approval;
      setApprovals((current) => (approval.decision === null ? [...current.filter((a) => a.id !== approval.id), approval] : current.filter((a) => a.id !== approval.id)));
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

  async function answer(approval: Approval, decision: ApprovalDecision) {
    if (!client) return;
    setError(null);
    try {
      await client.call('approvals.answer', { sessionId, approvalId: approval.id, decision });
      setApprovals((current) => current.filter((a) => a.id !== approval.id));
    } catch (e) {
      setError((e as Error).message);
    }
  }

  if (approvals.length === 0 && !error) return null;
  return (
    <>
      {approvals.map((approval) => (
        <div key={approval.id} className="card" data-row="approval" role="group" aria-label="Approval request">
          <div className="muted">The agent asks to run:</div>
          <div className="mono" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
            $ {approval.command}
          </div>
          {approval.reason && <div className="muted">{approval.reason}</div>}
          <div className="row" style={{ marginTop: 6 }}>
            <button className="primary" onClick={() => answer(approval, 'accept')}>
              Allow
            </button>
            <button onClick={() => answer(approval, 'decline')}>Decline</button>
          </div>
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
