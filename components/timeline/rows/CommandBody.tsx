'use client';
import { WrapText } from 'lucide-react';
import { useLayoutEffect, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import type { CommandRow } from '../../../lib/protocol/rows';
import { formatBytes, formatElapsed } from '../../formatting';
import { LinkedText } from '../../LinkedText';
import { OutputLineView } from '../../OutputLines';
import type { RowContext } from '../rowContext';
import { StopRunButton } from './StopRunButton';
import { useOutputTail } from './useOutputTail';

/** A command that failed: it could not start, or it exited with a code other than 0 (UX-2). */
export function commandFailed(row: CommandRow): boolean {
  return row.status === 'failed' || (row.status === 'exited' && row.exitCode !== 0);
}

function CommandSummary({
  row,
  now,
  offline,
  waiting,
}: {
  row: CommandRow;
  now: number;
  offline: boolean;
  waiting: boolean;
}) {
  const elapsed = (row.endedAt ?? now) - row.startedAt;
  const bad = commandFailed(row);
  // UX-3: offline, a row saved as running may have finished long ago; it never shows a live timer.
  const unknown = offline && row.status === 'running';
  // TL-9: a declined command never ran; it is not a cancelled one that may have left output behind.
  const label = unknown
    ? 'status unknown while offline'
    : waiting
      ? 'waiting for your approval'
      : row.declined
        ? 'declined'
        : row.status === 'exited'
          ? `exit ${row.exitCode}`
          : row.status;
  const status = waiting ? 'waiting-approval' : row.declined ? 'declined' : row.status;
  return (
    <span className="row muted">
      <span
        className={
          bad
            ? 'status-bad'
            : row.status === 'exited'
              ? 'status-exited-0'
              : unknown
                ? 'status-unknown'
                : waiting
                  ? 'status-waiting'
                  : ''
        }
        data-status={status}
        data-status-unknown={unknown || undefined}
      >
        {label}
      </span>
      {bad && <span className="pill status-failed-pill">failed</span>}
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
  // Long lines scroll sideways unless the person asks for them wrapped (UX-2); the choice is
  // offered only where a line is wider than the row.
  const [wrapped, setWrapped] = useState(false);
  const [overflows, setOverflows] = useState(false);
  const tailBox = useRef<HTMLPreElement>(null);
  useLayoutEffect(() => {
    const box = tailBox.current;
    if (!box || wrapped) return;
    const measure = () => setOverflows(box.scrollWidth > box.clientWidth + 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    return () => observer.disconnect();
  }, [tail, wrapped]);
  const offerWrap = tail.length > 0 && (wrapped || overflows);
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
      <div className="command-frame">
        <div
          className="command command-body"
          data-row="command"
          data-failed={commandFailed(row) || undefined}
          role="button"
          tabIndex={0}
          onClick={open}
          onKeyDown={openWithKey}
        >
          <div className="mono command-line">
            $ <LinkedText text={row.command} />
          </div>
          <CommandSummary row={row} now={context.now} offline={context.client === null} waiting={waiting} />
          {tail.length > 0 && (
            <pre
              ref={tailBox}
              className={wrapped ? 'mono output-tail output-tail-wrapped' : 'mono output-tail'}
              aria-label="Last lines of the output"
            >
              {tail.map((line, i) => (
                <span key={`${line.offset}-${i}`}>
                  {i > 0 && '\n'}
                  <OutputLineView segments={line.segments} query="" />
                </span>
              ))}
            </pre>
          )}
        </div>
        {/* Over the lines' corner, not a row of its own: offering it moves nothing (TL-4 keeps rows in place). */}
        {offerWrap && (
          <button
            type="button"
            className="output-wrap-toggle"
            aria-label={wrapped ? 'Unwrap lines' : 'Wrap lines'}
            title={wrapped ? 'Unwrap lines' : 'Wrap lines'}
            aria-pressed={wrapped}
            onClick={() => setWrapped((on) => !on)}
          >
            <WrapText size={18} aria-hidden="true" focusable="false" />
          </button>
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
