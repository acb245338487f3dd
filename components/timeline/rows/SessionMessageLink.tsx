'use client';
import { z } from 'zod';
import { routeHash } from '../../../lib/client/appRoute';
import type { AgentItemRow, MessageSender } from '../../../lib/protocol/rows';
import { parseJsonWith } from '../../../lib/shared/parseJsonWith';

/** What a message from another session's row says of its delivery (MSG-4). */
const DELIVERY: Record<MessageSender['delivery'], string> = {
  sent: '',
  'needs-approval': ' · waiting for your approval',
  declined: ' · declined',
};

/** MSG-1: the row of a message another session's agent sent names that session, as a link to it. */
export function SessionMessageFrom({ sender }: { sender: MessageSender }) {
  return (
    <div className="row session-message-link muted" data-from-session={sender.sessionId}>
      <span className="grow">
        From session <a href={routeHash({ kind: 'sessions', sessionId: sender.sessionId })}>{sender.title}</a>
        {DELIVERY[sender.delivery]}
      </span>
    </div>
  );
}

/** MSG-1: the sender's tool call links to the session it sent to. */
export function SessionMessageTo({ sessionId }: { sessionId: string }) {
  return (
    <div className="row session-message-link muted" data-to-session={sessionId}>
      <span className="grow">
        Sent to <a href={routeHash({ kind: 'sessions', sessionId })}>the other session</a>
      </span>
    </div>
  );
}

const SendMessageInput = z.object({ session_id: z.string().min(1) });

/** The session a `send_message` call of the session tool server names (MSG-1); null for any other tool or an input that does not parse. */
export function sessionMessageRecipient(row: Extract<AgentItemRow, { kind: 'toolCall' }>): string | null {
  if (row.tool !== 'mcp:hbcode/send_message' || row.input.truncated) return null;
  return parseJsonWith(SendMessageInput, row.input.text)?.session_id ?? null;
}
