'use client';
import { useCallback, useEffect, useMemo, useRef, type ReactNode } from 'react';
import type { RpcClient } from '../../lib/client/rpcClient';
import { useTimeline } from '../../lib/client/timeline/useTimeline';
import type { CommandRow, Session, TimelineRow } from '../../lib/protocol/rows';
import type { RowContext } from './rowContext';
import { timelineEntries } from './shellCards';
import { TimelineList } from './TimelineList';
import { useClock } from './useClock';
import { EmptyState } from '../EmptyState';
import { TimelineLoadError } from './TimelineLoadError';

export type SubagentRow = Extract<TimelineRow, { kind: 'subagent' }>;

export interface TimelineScreenProps {
  client: RpcClient | null;
  session: Session;
  /** null: the session's own timeline; a subagent's itemId: that subagent's (TL-1). */
  parentItemId: string | null;
  onOpenCommand: (row: CommandRow) => void;
  onOpenSubagent: (row: SubagentRow) => void;
  /** Given the rows shown: what goes after them in the same scrolling box. */
  footer?: (rows: readonly TimelineRow[]) => ReactNode;
  /** Whether a message of this timeline is running now (the composer offers queue or steer, ACC-6). */
  onRunningChange?: (running: boolean) => void;
  label: string;
  /** The agent's items waiting for the person's answer (ACC-4). */
  waitingForApproval?: ReadonlySet<string>;
}

const NONE_WAITING: ReadonlySet<string> = new Set();

/** A timeline with no rows yet says what to do (UX-3). */
function EmptyTimeline({ agent, subagent }: { agent: Session['agent']; subagent: boolean }) {
  if (subagent)
    return <EmptyState name="subagent" title="No rows yet" hint="The subagent's steps appear here as it works." />;
  if (agent === 'shell')
    return (
      <EmptyState
        name="timeline"
        title="No commands yet"
        hint="Type a command below; it runs in the project folder and its output is kept here."
      />
    );
  return (
    <EmptyState
      name="timeline"
      title="No messages yet"
      hint="Tell the agent below what to do; its answers, commands and changes appear here."
    />
  );
}

/** One timeline (the session's or a subagent's): its rows read page by page and followed live (TL-1, TL-4). */
export function TimelineScreen({
  client,
  session,
  parentItemId,
  onOpenCommand,
  onOpenSubagent,
  footer,
  onRunningChange,
  label,
  waitingForApproval = NONE_WAITING,
}: TimelineScreenProps) {
  const timeline = useTimeline(client, session.id, parentItemId);
  const { rows, hasOlder, loadingOlder } = timeline;
  const now = useClock(rows);
  const entries = useMemo(() => timelineEntries(rows, session.agent === 'shell'), [rows, session.agent]);
  const context: RowContext = useMemo(
    () => ({ client, now, onOpenCommand, onOpenSubagent, waitingForApproval }),
    [client, now, onOpenCommand, onOpenSubagent, waitingForApproval],
  );
  // The hook's loadOlder is a new function each render; the list wants one that stays.
  const loadOlderNow = useRef(timeline.loadOlder);
  useEffect(() => {
    loadOlderNow.current = timeline.loadOlder;
  });
  const loadOlder = useCallback(() => void loadOlderNow.current(), []);
  const running = rows.some((row) => row.kind === 'message' && row.state === 'running');
  useEffect(() => onRunningChange?.(running), [running, onRunningChange]);

  return (
    <>
      {timeline.offline && timeline.savedAt !== null && (
        <p className="muted timeline-saved">Saved {new Date(timeline.savedAt).toLocaleString()}</p>
      )}
      <TimelineList
        entries={entries}
        context={context}
        hasOlder={hasOlder}
        loadingOlder={loadingOlder}
        onLoadOlder={loadOlder}
        footer={
          <>
            {/* A timeline that could not be read is not empty: its error says why below. */}
            {!timeline.opening && !timeline.error && rows.length === 0 && !hasOlder && (
              <EmptyTimeline agent={session.agent} subagent={parentItemId !== null} />
            )}
            {footer?.(rows)}
          </>
        }
        label={label}
      />
      {timeline.error && (
        <TimelineLoadError
          client={client}
          sessionId={session.id}
          error={timeline.error}
          errorCode={timeline.errorCode}
          onReload={() => void timeline.reload()}
        />
      )}
    </>
  );
}
