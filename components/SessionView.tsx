'use client';
import { ArrowLeft, Settings2 } from 'lucide-react';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { RpcClient } from '../lib/client/rpcClient';
import { useSeenWhileOpen } from '../lib/client/sessions/useSeenWhileOpen';
import type { CommandRow, Session } from '../lib/protocol/rows';
import { ApprovalList, useApprovals, waitingItems } from './ApprovalRequests';
import { SessionSettingsPanel } from './agents/SessionSettingsPanel';
import { Composer, OutboxEntries } from './Composer';
import { LazyOutputViewer as OutputViewer } from './lazy/LazyOutputViewer';
import { TimelineScreen, type SubagentRow } from './timeline/TimelineScreen';
import { useRouteCommand, type CommandAddress } from './navigation/useRouteCommand';
import { SessionTitle } from './sessions/SessionTitle';
import { SessionGitLink } from './git/SessionGitLink';
import { useWideLayout } from './layout/useWideLayout';
import { LazyTerminalView } from './lazy/LazyTerminalView';
import { useReadOnlySource } from './agents/useReadOnlySource';

type OutputAddress = CommandAddress & { at: number | null };

/** Where the session is, given by the app's address (UX-1); without it the view keeps its own place. */
export interface SessionRouting {
  /** The output the address opens, with the byte offset to show (null: where it is). */
  output: OutputAddress | null;
  onOpenOutput: (row: CommandRow) => void;
  onCloseOutput: () => void;
  /** The byte offset at the top of the viewer, as the user scrolls (null: following the tail). */
  onOutputPosition: (offset: number | null) => void;
  onOutputMissing: (reason: string) => void;
  onRenamed: (session: Session) => void;
}

export interface SessionViewProps {
  client: RpcClient | null;
  session: Session;
  onBack: () => void;
  routing?: SessionRouting;
}

const addressOf = (row: CommandRow): OutputAddress => ({
  sessionId: row.sessionId,
  runId: row.runId,
  commandId: row.commandId,
  at: null,
});

/** How many subagent levels the current history entry shows (0: the session's own timeline). */
const SUBAGENT_DEPTH_KEY = 'hbSubagents';
function subagentDepth(state: unknown): number {
  const depth =
    typeof state === 'object' && state !== null ? (state as Record<string, unknown>)[SUBAGENT_DEPTH_KEY] : undefined;
  return typeof depth === 'number' && Number.isInteger(depth) && depth > 0 ? depth : 0;
}

/**
 * One session: its timeline with every row kind (SES-3, TL-1), a subagent's own timeline when
 * one is opened, a command's output viewer, and the composer.
 */
export function SessionView(props: SessionViewProps) {
  useSeenWhileOpen(props.client, props.session.id);
  // TERM-6: a terminal session is its screen, not a timeline.
  if (props.session.agent === 'terminal')
    return (
      <LazyTerminalView
        client={props.client}
        session={props.session}
        onBack={props.onBack}
        onRenamed={props.routing?.onRenamed}
      />
    );
  return <TimelineSessionView {...props} />;
}

function TimelineSessionView({ client, session, onBack, routing }: SessionViewProps) {
  /** The row last tapped: the viewer opens with it at once, before the runtime answers. */
  const [tapped, setTapped] = useState<CommandRow | null>(null);
  /** Without routing (a page that shows one session), the open output is this view's own. */
  const [ownOutput, setOwnOutput] = useState<OutputAddress | null>(null);
  const output = routing ? routing.output : ownOutput;
  const onOpenOutput = routing?.onOpenOutput;
  /** The subagents opened, outermost first: Back returns one level (TL-1). */
  const [subagents, setSubagents] = useState<SubagentRow[]>([]);
  const subagent = subagents.at(-1) ?? null;
  /** The agent settings panel (ACC-5), changed between turns. */
  const [showSettings, setShowSettings] = useState(false);
  /** Every subagent opened along this history, so Forward can show one again. */
  const opened = useRef<SubagentRow[]>([]);
  const openSubagent = useCallback((row: SubagentRow) => {
    // A history entry per level (UX-1): the browser's Back returns to the parent timeline, not out of the app.
    const depth = subagentDepth(history.state) + 1;
    opened.current = [...opened.current.slice(0, depth - 1), row];
    // NOTE: the entry names no `hbFrom`: it was not opened from another view, so ← on it never goes Back past it.
    history.pushState({ [SUBAGENT_DEPTH_KEY]: depth }, '', location.href);
    setSubagents(opened.current);
  }, []);
  useEffect(() => {
    const onPop = () => setSubagents(opened.current.slice(0, subagentDepth(history.state)));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  /** The in-app ←: the browser's Back when this level has its own entry, else one level up in place. */
  const closeSubagent = () => {
    if (subagentDepth(history.state) === subagents.length) history.back();
    else setSubagents((current) => current.slice(0, -1));
  };
  /** A turn of the session runs now: the composer offers to queue after it or steer it (ACC-6). */
  const [turnRunning, setTurnRunning] = useState(false);
  const approvals = useApprovals(client, session.id);
  const readOnlySource = useReadOnlySource(client, session);
  const waitingForApproval = useMemo(() => waitingItems(approvals.approvals), [approvals.approvals]);
  const openCommand = useCallback(
    (row: CommandRow) => {
      setTapped(row);
      if (onOpenOutput) onOpenOutput(row);
      else setOwnOutput(addressOf(row));
    },
    [onOpenOutput],
  );
  // The open command's row follows its live updates, so the viewer follows the output (SES-4).
  const command = useRouteCommand(client, output, tapped);
  const missingReason = command.kind === 'missing' ? command.reason : null;
  const onOutputMissing = routing?.onOutputMissing;
  useEffect(() => {
    if (output && missingReason) onOutputMissing?.(missingReason);
  }, [output, missingReason, onOutputMissing]);

  const wide = useWideLayout();
  const viewer =
    output &&
    (command.kind === 'found' ? (
      <OutputViewer
        client={client}
        session={session}
        row={command.row}
        onClose={routing ? routing.onCloseOutput : () => setOwnOutput(null)}
        initialOffset={output.at}
        onPosition={routing?.onOutputPosition}
      />
    ) : (
      <p className="muted empty-state" role="status">
        Opening the output…
      </p>
    ));
  if (viewer && !wide) return viewer;

  const timeline = (
    <>
      <div className="topbar session-bar" style={{ borderBottom: 'none' }}>
        {subagent ? (
          <button onClick={closeSubagent} aria-label="Back to the parent timeline">
            <ArrowLeft size={20} aria-hidden="true" focusable="false" />
          </button>
        ) : (
          <button onClick={onBack} aria-label="Back to sessions">
            <ArrowLeft size={20} aria-hidden="true" focusable="false" />
          </button>
        )}
        {subagent ? (
          <h2 className="grow session-heading" title={subagent.title}>
            {subagent.title}
          </h2>
        ) : (
          <SessionTitle client={client} session={session} onRenamed={routing?.onRenamed} />
        )}
        <span className="pill">{subagent ? (subagent.agentType ?? 'subagent') : session.agent}</span>
        {!subagent && <SessionGitLink client={client} projectId={session.projectId} />}
        {client && !subagent && session.agent !== 'shell' && (
          // A gear, not a word: on a phone the title keeps the width (UX-4).
          <button
            aria-expanded={showSettings}
            aria-label="Settings"
            title="Session settings"
            onClick={() => setShowSettings(!showSettings)}
          >
            <Settings2 size={18} aria-hidden="true" focusable="false" />
          </button>
        )}
      </div>
      {client && !subagent && showSettings && <SessionSettingsPanel client={client} session={session} />}
      <TimelineScreen
        key={subagent?.itemId ?? ''}
        client={client}
        session={session}
        parentItemId={subagent?.itemId ?? null}
        onOpenCommand={openCommand}
        onOpenSubagent={openSubagent}
        onRunningChange={subagent ? undefined : setTurnRunning}
        waitingForApproval={waitingForApproval}
        label={subagent ? `Timeline of ${subagent.title}` : 'Timeline'}
        footer={
          subagent
            ? undefined
            : (rows) => (
                <>
                  <ApprovalList {...approvals} />
                  <OutboxEntries sessionId={session.id} rows={[...rows]} />
                </>
              )
        }
      />
      {!subagent &&
        (readOnlySource ? (
          // SRC-4: no message can reach the person's own Codex conversation: no composer offers one.
          <p className="muted read-only-source" role="note">
            This conversation is in your own Codex home: HB Code shows it without writing to it. Continue it in Codex,
            or start a new session here.
          </p>
        ) : (
          <Composer client={client} session={session} turnRunning={turnRunning} />
        ))}
    </>
  );
  // UX-6: on a wide screen the output (at its own address, UX-1) opens beside the timeline instead of over it.
  if (!viewer) return timeline;
  return (
    <div className="split">
      <div className="pane">{timeline}</div>
      <div
        className="pane output-pane"
        aria-label={command.kind === 'found' ? `Output of ${command.row.command}` : 'Output'}
        role="region"
      >
        {viewer}
      </div>
    </div>
  );
}
