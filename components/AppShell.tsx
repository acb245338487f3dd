'use client';
// First: configures zod before any schema is built (see the file).
import '../lib/client/zodWithoutEval';
import { useEffect, useRef, useState } from 'react';
import { loadPairing, type DevicePairing } from '../lib/client/appDb';
import { signOutDevice } from '../lib/client/devices/signOut';
import { clearReadCache } from '../lib/client/readCache';
import { forgetComposerMemory } from '../lib/client/composer/composerMemory';
import { grantReaderOpen } from '../lib/client/readerConsent';
import { markIosStandalone } from '../lib/client/install/standaloneClass';
import { ConnectionStatus, OfflineBanner } from './ConnectionStatus';
import { PairScreen } from './PairScreen';
import { WebPagesScreen } from './reader/WebPagesScreen';
import { ThisDeviceSection } from './devices/SignOutButton';
import { SessionRoutes } from './navigation/SessionRoutes';
// Everything past the first screen loads when first opened (UX-5).
import {
  AccountsView,
  DevicesScreen,
  FilesView,
  GitView,
  PreviewPane,
  ReaderView,
  SettingsScreen,
} from './lazy/lazyViews';
import { UpdatePrompt } from './UpdatePrompt';
import { ViewLinks } from './header/ViewLinks';
import { useOutboxSender } from './useOutbox';
import { useConnection } from './useConnection';
import { useAppRoute } from './useAppRoute';
import { usePendingSignOut } from './devices/usePendingSignOut';
import { useServiceWorkerMessages } from './devices/useServiceWorkerMessages';
import { useWideLayout } from './layout/useWideLayout';
import { InstallButton } from './settings/InstallButton';

/** The app: pairing until this device has a token, then sessions over one live connection. */
export function AppShell() {
  const [pairing, setPairing] = useState<DevicePairing | null | undefined>(undefined);
  const { route, problem, navigate, goUp, landOnList } = useAppRoute(Boolean(pairing));
  const state = useConnection(pairing ?? null);
  const client = state.kind === 'open' ? state.client : null;
  useOutboxSender(client);
  const [signedOut, setSignedOut] = useState<{ at: number; note: string } | null>(null);
  /** Between "Sign out of this device" and forgetting the pairing (DEV-1). */
  const [signingOut, setSigningOut] = useState(false);
  usePendingSignOut(signedOut?.at ?? null);
  const inSessions = route.kind === 'sessions' || route.kind === 'output';
  const routeSessionId = inSessions ? (route.sessionId ?? null) : null;
  useServiceWorkerMessages(routeSessionId);
  const wide = useWideLayout();
  /** The session of the last session route: on a wide screen it stays beside a preview opened from it (UX-6). */
  const lastSessionId = useRef<string | null>(null);
  if (inSessions) lastSessionId.current = routeSessionId;
  /** The app's own controls open an address without asking; anything else is confirmed first (SEC-5). */
  const openInReader = (url: string) => {
    grantReaderOpen(url);
    navigate({ kind: 'reader', url });
  };

  useEffect(() => {
    markIosStandalone();
    loadPairing().then(
      (found) => setPairing(found ?? null),
      () => setPairing(null),
    );
  }, []);

  /** DEV-1: revokes this device on the runtime (queued when offline), then forgets it here. */
  async function signOut() {
    if (!pairing) return;
    setSigningOut(true);
    try {
      const how = await signOutDevice(client, pairing);
      setSignedOut({
        at: Date.now(),
        note:
          how === 'revoked'
            ? 'You signed out. This device needs a new pairing code to connect again.'
            : 'You signed out. The computer will be told when it can be reached; this device needs a new pairing code.',
      });
      await clearReadCache().catch((e: unknown) => console.warn('Could not clear what this device saved', e));
      forgetComposerMemory();
      setPairing(null);
    } finally {
      setSigningOut(false);
    }
  }

  if (pairing === undefined) return null;
  // DEV-1: this device's own revocation closes its socket before the sign-out is done; that close
  // is expected, so the pair screen waits for the sign-out and shows its notice, never the revoked alert.
  if (pairing === null || (state.kind === 'unauthorized' && !signingOut)) {
    // The worker registers on the pair screen too, so the app installs and opens offline before pairing.
    return (
      <>
        <UpdatePrompt />
        <PairScreen
          reason={signedOut?.note ?? (state.kind === 'unauthorized' ? state.reason : undefined)}
          onPaired={(paired) => {
            setSignedOut(null);
            setPairing(paired);
          }}
        />
      </>
    );
  }
  const preview = (at: { projectDirectory: string; path: string }) => (
    // A preview's hbcode.html.open can be sent by the page with no click at all: not granted, so the reader asks first (SEC-5).
    <PreviewPane
      key={`${at.projectDirectory}\0${at.path}`}
      client={client}
      projectDirectory={at.projectDirectory}
      path={at.path}
      onOpenWeb={(url) => navigate({ kind: 'reader', url })}
    />
  );
  return (
    <div className="app" data-layout={wide ? 'wide' : 'single'}>
      <header className="topbar">
        <h1>HB Code</h1>
        <ViewLinks route={route} />
        <ConnectionStatus state={state} />
        <InstallButton />
      </header>
      <OfflineBanner state={state} />
      <UpdatePrompt />
      {problem && (
        <p className="route-problem" role="alert">
          {problem}
        </p>
      )}
      {inSessions && (
        <SessionRoutes client={client} route={route} navigate={navigate} goUp={goUp} landOnList={landOnList} />
      )}
      {route.kind === 'devices' && <DevicesScreen client={client} />}
      {route.kind === 'files' && (
        <FilesView client={client} projectDirectory={route.projectDirectory} path={route.path} navigate={navigate} />
      )}
      {route.kind === 'git' && (
        <GitView key={route.projectDirectory} client={client} projectDirectory={route.projectDirectory} />
      )}
      {route.kind === 'preview' &&
        (wide && lastSessionId.current ? (
          // UX-6: on a wide screen the last open session's timeline stays beside the preview.
          <div className="split">
            <div className="pane">
              <SessionRoutes
                client={client}
                route={{ kind: 'sessions', sessionId: lastSessionId.current }}
                navigate={navigate}
                goUp={goUp}
                landOnList={landOnList}
                besidePreview
              />
            </div>
            <div className="pane preview-pane">{preview(route)}</div>
          </div>
        ) : (
          preview(route)
        ))}
      {route.kind === 'accounts' && <AccountsView client={client} />}
      {route.kind === 'settings' && (
        <main className="scroll settings">
          <SettingsScreen />
          {/* Not in the lazy part: signing out works offline even when Settings was never opened before (DEV-1). */}
          <ThisDeviceSection onSignOut={signOut} />
        </main>
      )}
      {route.kind === 'web' && <WebPagesScreen onOpen={openInReader} />}
      {route.kind === 'reader' && (
        <ReaderView
          client={client}
          url={route.url}
          onOpen={openInReader}
          onCancel={() => navigate({ kind: 'sessions' })}
        />
      )}
    </div>
  );
}
