'use client';
import type { KeyboardEvent, MouseEvent } from 'react';
import type { CommandRow } from '../../../lib/protocol/rows';
import { formatBytes, formatElapsed } from '../../formatting';
import { LinkedText } from '../../LinkedText';
import { OutputLineView } from '../../OutputLines';
import type { RowContext } from '../rowContext';
import { StopRunButton } from './StopRunButton';
import { useOutputTail } from './useOutputTail';

function CommandSummary({ row, now, offline, waiting }: { row: CommandRow; now: number; offline: boolean; waiting: boolean }) {
  const elapsed = (row.endedAt ?? now) - row.startedAt;
  const bad = row.status === 'failed' || (row.status === 'exited' && row.exitCode !== 0);
  // UX-3: offline, a row saved as running may have finished long ago; it never shows a live timer.
  const unknown = offline && row.status === 'running';
  // TL-9: a declined command never ran; it is not a cancelled one that may have left output behind.
  const label = unknown ? 'status unknown while offline' : waiting ? 'waiting for your approval' : row.declined ? 'declined' : row.status === 'exited' ? `exit ${row.exitCode}` : row.status;
  const status = waiting ? 'waiting-approval' : row.declined ? 'declined' : row.status;
  return (
    <span className="row muted">
      <span className={bad ? 'status-bad' : row.status === 'exited' ? 'status-exited-0' : unknown ? 'status-unknown' : waiting ? 'status-waiting' : ''} data-status={status} data-status-unknown={unknown || undefined}>
        {label}
      </span>
      {!waiting && <span>{formatBytes(row.byteLength)}</span>}
      {!unknown && !waiting && <span>{formatElapsed(Math.max(0, elapsed))}</span>}
      {row.sourceIncomplete && row.complete && <span className="pill">may be incomplete</span>}
      {row.error && !row.declined && <span className="error">{row.error}</span>}
    </span>
  );
}

/**
 * A command: its line, status, sizes and the last lines of its output as a terminal shows them
 * (SES-3, TL-1, UX-2). A click or Enter anywhere on it but on a link opens the output viewer.
 */
export function CommandBody({ row, context }: { row: CommandRow; context: RowContext }) {
  // ACC-4: a command the agent asks about has not started; it waits for the person, not for itself.
  const waiting = row.status === 'running' && context.waitingForApproval.has(row.commandId);
  const tail = useOutputTail(context.client, row.sessionId, row);
  const open = (event: MouseEvent) => {
    if (event.target instanceof Element && event.target.closest('a')) return;
    context.onOpenCommand(row);
  };
  const openWithKey = (event: KeyboardEvent) => {
    if (event.target !== event.currentTarget || (event.key !== 'Enter' && event.key !== ' ')) return;
    event.preventDefault();
    context.onOpenCommand(row);
  };
  return (
    <>
      <div className="command command-body" data-row="command" role="button" tabIndex={0} onClick={open} onKeyDown={openWithKey}>
        <div className="mono command-line">
          $ <LinkedText text={row.command} />
        </div>
        <CommandSummary row={row} now={context.now} offline={context.client === null} waiting={waiting} />
        {tail.length > 0 && (
          <pre className="mono output-tail" aria-label="Last lines of the output">
            {tail.map((line, i) => (
              <span key={`${line.offset}-${i}`}>
                {i > 0 && '\n'}
                <OutputLineView segments={line.segments} query="" />
              </span>
            ))}
          </pre>
        )}
      </div>
      {row.status === 'running' && !waiting && (
        <div className="row row-actions">
          <StopRunButton client={context.client} sessionId={row.sessionId} runId={row.runId} />
        </div>
      )}
    </>
  );
}

/** A command on its own (an agent's): one card. */
export function CommandCard({ row, context }: { row: CommandRow; context: RowContext }) {
  return (
    <div className="card">
      <CommandBody row={row} context={context} />
    </div>
  );
}
