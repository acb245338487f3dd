'use client';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { RpcClient } from '../lib/client/rpcClient';
import { readTimelineSnapshot, saveTimelineSnapshot } from '../lib/client/snapshotCache';
import { throttledWriter } from '../lib/client/throttledWriter';
import type { CommandRow, Session, TimelineRow } from '../lib/protocol/rows';
import { ApprovalRequests } from './ApprovalRequests';
import { Composer, OutboxEntries } from './Composer';
import { AttachmentThumbnails } from './attachments/AttachmentThumbnails';
import { formatBytes, formatElapsed } from './formatting';
import { OutputViewer } from './OutputViewer';
import { LinkedText } from './LinkedText';

function upsert(rows: TimelineRow[], row: TimelineRow): TimelineRow[] {
  const index = rows.findIndex((r) => r.id === row.id);
  if (index === -1) {
    // A command belongs after its message; everything else goes to the end.
    return [...rows, row];
  }
  const next = rows.slice();
  next[index] = row;
  return next;
}

function CommandSummary({ row, now }: { row: CommandRow; now: number }) {
  const elapsed = (row.endedAt ?? now) - row.startedAt;
  const bad = row.status === 'failed' || (row.status === 'exited' && row.exitCode !== 0);
  return (
    <span className="row muted">
      <span className={bad ? 'status-bad' : row.status === 'exited' ? 'status-exited-0' : ''} data-status={row.status}>
        {row.status === 'exited' ? `exit ${row.exitCode}` : row.status}
      </span>
      <span>{formatBytes(row.byteLength)}</span>
      <span>{formatElapsed(Math.max(0, elapsed))}</span>
      {row.sourceIncomplete && row.complete && <span className="pill">may be incomplete</span>}
      {row.error && <span className="error">{row.error}</span>}
    </span>
  );
}

/** One session: its timeline with live command rows (SES-3, SES-4) and a composer. */
export function SessionView({ client, session, onBack }: { client: RpcClient | null; session: Session; onBack: () => void }) {
  const [rows, setRows] = useState<TimelineRow[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<CommandRow | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const bottom = useRef<HTMLDivElement>(null);
  /** When the rows shown are what this device saved (PWA-3); null once the runtime answered. */
  const [savedAt, setSavedAt] = useState<number | null>(null);
  const fresh = useRef(false);

  useEffect(() => {
    let live = true;
    fresh.current = false;
    readTimelineSnapshot(session.id).then(
      (saved) => {
        if (!live || !saved || fresh.current) return;
        setRows(saved.value);
        setSavedAt(saved.savedAt);
      },
      (e: unknown) => console.warn('Could not read the saved timeline', e),
    );
    return () => {
      live = false;
    };
  }, [session.id]);

  // Live rows change up to 10 times a second per command (SES-4): save at most once a second.
  const snapshotWriter = useMemo(
    () => throttledWriter((next: TimelineRow[]) => saveTimelineSnapshot(session.id, next).catch((e: unknown) => console.warn('Could not save the timeline on this device', e)), 1000),
    [session.id],
  );
  useEffect(() => () => snapshotWriter.flush(), [snapshotWriter]);
  useEffect(() => {
    if (savedAt === null && fresh.current) snapshotWriter.push(rows);
  }, [rows, savedAt, snapshotWriter]);

  useEffect(() => {
    if (!client) return;
    let live = true;
    const stop = client.onNotification('timeline.row', (params) => {
      if (params.sessionId === session.id) {
        setRows((current) => upsert(current, params.row));
        setOpen((current) => (current && params.row.kind === 'command' && current.id === params.row.id ? params.row : current));
      }
    });
    client
      .call('sessions.timeline', { sessionId: session.id })
      .then((result) => {
        if (!live) return;
        fresh.current = true;
        setRows(result.rows);
        setSavedAt(null);
      })
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
      stop();
    };
  }, [client, session.id]);

  useEffect(() => {
    const running = rows.some((r) => r.kind === 'command' && r.status === 'running');
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [rows]);

  useEffect(() => {
    bottom.current?.scrollIntoView({ block: 'end' });
  }, [rows.length]);

  if (open) return <OutputViewer client={client} session={session} row={open} onClose={() => setOpen(null)} />;

  return (
    <>
      <div className="topbar" style={{ borderBottom: 'none' }}>
        <button onClick={onBack} aria-label="Back to sessions">
          ←
        </button>
        <h2 className="grow ellipsis" style={{ margin: 0, fontSize: 17 }}>
          {session.title}
        </h2>
        <span className="pill">{session.agent}</span>
        {savedAt !== null && <span className="muted">Saved {new Date(savedAt).toLocaleString()}</span>}
      </div>
      <div className="scroll" aria-label="Timeline" role="log">
        {rows.map((row) =>
          row.kind === 'message' ? (
            <div key={row.id} className="card message" data-row="message">
              <div className="mono" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
                <LinkedText text={row.text} />
              </div>
              <AttachmentThumbnails client={client} row={row} />
              <div className="muted">{row.state}</div>
            </div>
          ) : row.kind === 'command' ? (
            <button key={row.id} className="card command list-button" data-row="command" onClick={() => setOpen(row)} style={{ display: 'block', height: 'auto' }}>
              <div className="mono ellipsis">$ {row.command}</div>
              <CommandSummary row={row} now={now} />
            </button>
          ) : row.kind === 'settled' ? (
            <div key={row.id} className="card" data-row="settled">
              {row.text}
            </div>
          ) : null,
        )}
        <ApprovalRequests client={client} sessionId={session.id} />
        <OutboxEntries sessionId={session.id} rows={rows} />
        <div ref={bottom} />
      </div>
      {error && (
        <p className="error" role="alert" style={{ padding: '0 14px' }}>
          {error}
        </p>
      )}
      <Composer session={session} />
    </>
  );
}
