import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { ApprovalRequests } from '../../components/ApprovalRequests';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { Approval } from '../../lib/protocol/agents';

/** What the cards sent, in order. */
export const answers: unknown[] = [];

/**
 * Renders the approval cards of one session against a stand-in client that lists `approvals`
 * and records each `approvals.answer` (the runtime side is tested against the real agent).
 */
export function mount(approvals: Approval[]): void {
  const client = {
    call: async (method: string, params: { approvalId?: string; decision?: string }) => {
      if (method === 'approvals.list') return { approvals };
      answers.push({ method, ...params });
      const approval = approvals.find((a) => a.id === params.approvalId)!;
      return { approval: { ...approval, decision: params.decision } };
    },
    onNotification: () => () => undefined,
  } as unknown as RpcClient;
  const root = document.createElement('div');
  document.body.append(root);
  createRoot(root).render(createElement(ApprovalRequests, { client, sessionId: 's1' }));
}
