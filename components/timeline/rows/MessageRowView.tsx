'use client';
import { useState } from 'react';
import { enqueueMessage } from '../../../lib/client/outbox';
import type { CommandRow, MessageRow, SteerDelivery } from '../../../lib/protocol/rows';
import { AttachmentThumbnails } from '../../attachments/AttachmentThumbnails';
import { LinkedText } from '../../LinkedText';
import type { RowContext } from '../rowContext';
import { CommandBody } from './CommandBody';
import { SessionMessageFrom } from './SessionMessageLink';
import { StopRunButton } from './StopRunButton';

type FixAction = Exclude<NonNullable<NonNullable<MessageRow['failure']>['action']>, 'resend'>;

const FIX: Record<FixAction, string> = {
  codexSignIn: 'Sign in to Codex',
  claudeSignIn: 'Sign in to Claude',
  install: 'Install the agent',
};

/** What a steering message's row says of it (ACC-6): delivered only once its model was sent it. */
const STEER_STATE: Record<SteerDelivery, string> = {
  sending: 'steering: sending to the turn',
  accepted: 'steering: accepted by the agent, not yet delivered',
  delivered: 'delivered',
  notDelivered: 'not delivered',
};

/** Send again (ACC-6): the same text as a new message through the outbox, once. */
function SendAgainButton({ row }: { row: MessageRow }) {
  const [sent, setSent] = useState(false);
  return (
    <button
      type="button"
      data-failure-action="resend"
      disabled={sent}
      onClick={() => {
        setSent(true);
        void enqueueMessage(row.sessionId, row.text).catch(() => setSent(false));
      }}
    >
      {sent ? 'Sent again' : 'Send again'}
    </button>
  );
}

/** Why the message failed and, when there is one, the button to the fix (ACC-3, ACC-6). */
function MessageFailure({ row, failure }: { row: MessageRow; failure: NonNullable<MessageRow['failure']> }) {
  return (
    <div className="row message-failure" role="alert">
      <span className="error grow timeline-text">{failure.message}</span>
      {failure.action === 'resend' && <SendAgainButton row={row} />}
      {failure.action && failure.action !== 'resend' && (
        <a className="button-link" href="#/accounts" data-failure-action={failure.action}>
          {FIX[failure.action]}
        </a>
      )}
    </div>
  );
}

/**
 * A message the user sent (SES-3): its state, Stop while it runs, why it failed, and a stall
 * ("No activity for 3 min", ACC-3). In a shell session the command it ran is part of the same
 * card (`command`), so the text shows once.
 */
export function MessageRowView({
  row,
  command,
  context,
}: {
  row: MessageRow;
  command: CommandRow | null;
  context: RowContext;
}) {
  const stalledMinutes =
    row.stalledSince !== undefined ? Math.max(1, Math.floor((context.now - row.stalledSince) / 60_000)) : null;
  const running = row.state === 'running';
  return (
    <div className="card message" data-row="message" data-state={row.state}>
      {row.fromSession && <SessionMessageFrom sender={row.fromSession} />}
      {command ? (
        <CommandBody row={command} context={context} />
      ) : (
        <>
          <div className="mono timeline-text">
            <LinkedText text={row.text} />
          </div>
          <div className="row">
            <span className="muted grow" data-message-state={row.state}>
              {/* UX-3: offline, a saved "running" is only what was true when it was saved. */}
              {running && !context.client
                ? 'status unknown while offline'
                : row.steer
                  ? STEER_STATE[row.steer]
                  : row.state}
            </span>
            {running && <StopRunButton client={context.client} sessionId={row.sessionId} runId={row.runId} />}
          </div>
        </>
      )}
      <AttachmentThumbnails client={context.client} row={row} />
      {stalledMinutes !== null && running && (
        <p className="message-stalled" role="status">
          No activity for {stalledMinutes} min
          {command && command.status !== 'running' && (
            <StopRunButton client={context.client} sessionId={row.sessionId} runId={row.runId} />
          )}
        </p>
      )}
      {row.state === 'failed' && row.failure && <MessageFailure row={row} failure={row.failure} />}
    </div>
  );
}
