'use client';
import type { CommandRow, MessageRow } from '../../../lib/protocol/rows';
import { AttachmentThumbnails } from '../../attachments/AttachmentThumbnails';
import { LinkedText } from '../../LinkedText';
import type { RowContext } from '../rowContext';
import { CommandBody } from './CommandBody';
import { StopRunButton } from './StopRunButton';

const FIX: Record<NonNullable<NonNullable<MessageRow['failure']>['action']>, string> = {
  codexSignIn: 'Sign in to Codex',
  claudeSignIn: 'Sign in to Claude',
  install: 'Install the agent',
};

/** Why the message failed and, when there is one, the button to the fix (ACC-3). */
function MessageFailure({ failure }: { failure: NonNullable<MessageRow['failure']> }) {
  return (
    <div className="row message-failure" role="alert">
      <span className="error grow timeline-text">{failure.message}</span>
      {failure.action && (
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
export function MessageRowView({ row, command, context }: { row: MessageRow; command: CommandRow | null; context: RowContext }) {
  const stalledMinutes = row.stalledSince !== undefined ? Math.max(1, Math.floor((context.now - row.stalledSince) / 60_000)) : null;
  const running = row.state === 'running';
  return (
    <div className="card message" data-row="message" data-state={row.state}>
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
              {running && !context.client ? 'status unknown while offline' : row.state}
            </span>
            {running && <StopRunButton client={context.client} sessionId={row.sessionId} runId={row.runId} />}
          </div>
        </>
      )}
      <AttachmentThumbnails client={context.client} row={row} />
      {stalledMinutes !== null && running && (
        <p className="message-stalled" role="status">
          No activity for {stalledMinutes} min
          {command && command.status !== 'running' && <StopRunButton client={context.client} sessionId={row.sessionId} runId={row.runId} />}
        </p>
      )}
      {row.state === 'failed' && row.failure && <MessageFailure failure={row.failure} />}
    </div>
  );
}
