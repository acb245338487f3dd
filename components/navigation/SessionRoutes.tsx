'use client';
import { useCallback, useEffect, useState } from 'react';
import type { AppRoute } from '../../lib/client/appRoute';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { CommandRow, Session } from '../../lib/protocol/rows';
import { SessionList } from '../SessionList';
import { EmptyPane } from '../layout/EmptyPane';
import { useWideLayout } from '../layout/useWideLayout';
// The timeline loads when a session first opens (UX-5).
import { SessionView } from '../lazy/lazyViews';
import type { AppNavigation } from '../useAppRoute';
import { useRouteSession } from './useRouteSession';
import './navigation.css';

type SessionsRoute = Extract<AppRoute, { kind: 'sessions' | 'output' }>;

interface SessionRoutesProps extends Pick<AppNavigation, 'navigate' | 'goUp' | 'landOnList'> {
  client: RpcClient | null;
  route: SessionsRoute;
  /** Beside a preview on a wide screen (UX-6): the session alone, and a session gone leaves the preview open. */
  besidePreview?: boolean;
}

/**
 * The list, a session's timeline and a command's output, each at its own address (UX-1): a
 * session opens from its id (on any paired device), an output from its run and command ids.
 */
export function SessionRoutes({
  client,
  route,
  navigate,
  goUp,
  landOnList,
  besidePreview = false,
}: SessionRoutesProps) {
  const wide = useWideLayout();
  /** The session last opened from the list: shown at once, before the runtime answers. */
  const [opened, setOpened] = useState<Session | null>(null);
  const sessionId = route.kind === 'output' ? route.sessionId : (route.sessionId ?? null);
  const found = useRouteSession(client, sessionId, opened);
  const missing = found.kind === 'missing' ? found.reason : null;
  useEffect(() => {
    if (missing && !besidePreview) landOnList(missing);
  }, [missing, landOnList, besidePreview]);

  const open = useCallback(
    (session: Session) => {
      setOpened(session);
      navigate({ kind: 'sessions', sessionId: session.id });
    },
    [navigate],
  );
  const openOutput = useCallback(
    (row: CommandRow) =>
      navigate({ kind: 'output', sessionId: row.sessionId, runId: row.runId, commandId: row.commandId, at: null }),
    [navigate],
  );
  const outputPosition = useCallback(
    (at: number | null) => {
      if (route.kind === 'output' && route.at !== at) navigate({ ...route, at }, { replace: true });
    },
    [route, navigate],
  );

  const list = <SessionList client={client} onOpen={open} openSessionId={sessionId} />;
  const session = !sessionId ? null : found.kind === 'found' ? (
    <SessionView
      key={found.session.id}
      client={client}
      session={found.session}
      onBack={goUp}
      routing={{
        output: route.kind === 'output' ? route : null,
        onOpenOutput: openOutput,
        onCloseOutput: goUp,
        onOutputPosition: outputPosition,
        onOutputMissing: landOnList,
        onRenamed: setOpened,
      }}
    />
  ) : found.kind === 'missing' && besidePreview ? (
    <EmptyPane message={found.reason} />
  ) : (
    <p className="muted empty-state" role="status">
      {found.kind === 'loading' && found.note ? found.note : 'Opening the session…'}
    </p>
  );
  if (besidePreview) return session;
  // UX-6: a wide screen keeps the list beside the open session (it gives way to an open output, app/globals.css).
  if (wide) {
    return (
      <div className="split split-list">
        <aside className="pane list-pane" aria-label="Sessions">
          {list}
        </aside>
        <div className="pane">
          {session ?? (
            <EmptyPane message="No session is open. Pick one from the list, or start one with New session." />
          )}
        </div>
      </div>
    );
  }
  return session ?? list;
}
