'use client';
import { ArrowLeft } from 'lucide-react';
import { useCallback, useEffect, useState } from 'react';
import type { RpcClient } from '../lib/client/rpcClient';
import type { CommandRow, Session } from '../lib/protocol/rows';
import { ApprovalRequests } from './ApprovalRequests';
import { SessionSettingsPanel } from './agents/SessionSettingsPanel';
import { Composer, OutboxEntries } from './Composer';
import { OutputViewer } from './OutputViewer';
import { TimelineScreen, type SubagentRow } from './timeline/TimelineScreen';
import { useWideLayout } from './layout/useWideLayout';

/**
 * One session: its timeline with every row kind (SES-3, TL-1), a subagent's own timeline when
 * one is opened, a command's output viewer, and the composer.
 */
export function SessionView({ client, session, onBack }: { client: RpcClient | null; session: Session; onBack: () => void }) {
  const [open, setOpen] = useState<CommandRow | null>(null);
  /** The subagents opened, outermost first: Back returns one level (TL-1). */
  const [subagents, setSubagents] = useState<SubagentRow[]>([]);
  const subagent = subagents.at(-1) ?? null;
  /** The agent settings panel (ACC-5), changed between turns. */
  const [showSettings, setShowSettings] = useState(false);
  const openSubagent = useCallback((row: SubagentRow) => setSubagents((current) => [...current, row]), []);
  /** A turn of the session runs now: the composer offers to queue after it or steer it (ACC-6). */
  const [turnRunning, setTurnRunning] = useState(false);
  const openId = open?.id ?? null;

  // The open command's row follows its live updates, so the viewer follows the output (SES-4).
  useEffect(() => {
    if (!client || !openId) return;
    return client.onNotification('timeline.row', (params) => {
      const { row } = params;
      if (params.sessionId === session.id && row.kind === 'command' && row.id === openId) setOpen(row);
    });
  }, [client, openId, session.id]);

  const wide = useWideLayout();
  const viewer = open && <OutputViewer client={client} session={session} row={open} onClose={() => setOpen(null)} />;
  if (viewer && !wide) return viewer;

  const timeline = (
    <>
      <div className="topbar" style={{ borderBottom: 'none' }}>
        {subagent ? (
          <button onClick={() => setSubagents((current) => current.slice(0, -1))} aria-label="Back to the parent timeline">
            <ArrowLeft size={20} aria-hidden="true" focusable="false" />
          </button>
        ) : (
          <button onClick={onBack} aria-label="Back to sessions">
            <ArrowLeft size={20} aria-hidden="true" focusable="false" />
          </button>
        )}
        <h2 className="grow ellipsis" style={{ margin: 0, fontSize: 17 }}>
          {subagent ? subagent.title : session.title}
        </h2>
        <span className="pill">{subagent ? (subagent.agentType ?? 'subagent') : session.agent}</span>
        {client && !subagent && session.agent !== 'shell' && (
          <button aria-expanded={showSettings} onClick={() => setShowSettings(!showSettings)}>
            Settings
          </button>
        )}
      </div>
      {client && !subagent && showSettings && <SessionSettingsPanel client={client} session={session} />}
      <TimelineScreen
        key={subagent?.itemId ?? ''}
        client={client}
        session={session}
        parentItemId={subagent?.itemId ?? null}
        onOpenCommand={setOpen}
        onOpenSubagent={openSubagent}
        onRunningChange={subagent ? undefined : setTurnRunning}
        label={subagent ? `Timeline of ${subagent.title}` : 'Timeline'}
        footer={
          subagent
            ? undefined
            : (rows) => (
                <>
                  <ApprovalRequests client={client} sessionId={session.id} />
                  <OutboxEntries sessionId={session.id} rows={[...rows]} />
                </>
              )
        }
      />
      {!subagent && <Composer session={session} turnRunning={turnRunning} />}
    </>
  );
  // UX-4: on a wide screen the output opens beside the timeline instead of over it.
  if (!viewer) return timeline;
  return (
    <div className="split">
      <div className="pane">{timeline}</div>
      <div className="pane output-pane" aria-label={`Output of ${open.command}`} role="region">
        {viewer}
      </div>
    </div>
  );
}
