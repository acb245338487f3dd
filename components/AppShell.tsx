'use client';
// First: configures zod before any schema is built (see the file).
import '../lib/client/zodWithoutEval';
import { useEffect, useState } from 'react';
import { forgetPairing, loadPairing, type DevicePairing } from '../lib/client/appDb';
import { clearReadCache } from '../lib/client/readCache';
import { grantReaderOpen } from '../lib/client/readerConsent';
import type { Session } from '../lib/protocol/rows';
import { ConnectionStatus, OfflineBanner } from './ConnectionStatus';
import { AccountsView } from './agents/AccountsView';
import { FilesView } from './files/FilesView';
import { PairScreen } from './PairScreen';
import { OpenWebPageForm } from './OpenWebPageForm';
import { PreviewPane } from './PreviewPane';
import { ReaderView } from './ReaderView';
import { SessionList } from './SessionList';
import { SessionView } from './SessionView';
import { UpdatePrompt } from './UpdatePrompt';
import { useOutboxSender } from './useOutbox';
import { useConnection } from './useConnection';
import { useAppRoute } from './useAppRoute';

/** The app: pairing until this device has a token, then sessions over one live connection. */
export function AppShell() {
  const [pairing, setPairing] = useState<DevicePairing | null | undefined>(undefined);
  const [session, setSession] = useState<Session | null>(null);
  const [route, navigate] = useAppRoute();
  const state = useConnection(pairing?.token ?? null);
  const client = state.kind === 'open' ? state.client : null;
  useOutboxSender(client);
  /** The app's own controls open an address without asking; anything else is confirmed first (SEC-5). */
  const openInReader = (url: string) => {
    grantReaderOpen(url);
    navigate({ kind: 'reader', url });
  };

  useEffect(() => {
    loadPairing().then(
      (found) => setPairing(found ?? null),
      () => setPairing(null),
    );
  }, []);

  async function signOut() {
    await forgetPairing();
    await clearReadCache().catch((e: unknown) => console.warn('Could not clear what this device saved', e));
    setSession(null);
    setPairing(null);
  }

  if (pairing === undefined) return null;
  if (pairing === null || state.kind === 'unauthorized') {
    // The worker registers on the pair screen too, so the app installs and opens offline before pairing.
    return (
      <>
        <UpdatePrompt />
        <PairScreen reason={state.kind === 'unauthorized' ? state.reason : undefined} onPaired={setPairing} />
      </>
    );
  }
  return (
    <div className="app">
      <header className="topbar">
        <h1>HB Code</h1>
        <nav className="topnav" aria-label="Views">
          <a href="#/" aria-current={route.kind === 'sessions' ? 'page' : undefined} onClick={() => setSession(null)}>
            Sessions
          </a>
          <a href="#/files" aria-current={route.kind === 'files' ? 'page' : undefined}>
            Files
          </a>
          <a href="#/accounts" aria-current={route.kind === 'accounts' ? 'page' : undefined}>
            Accounts
          </a>
        </nav>
        <OpenWebPageForm initialUrl={route.kind === 'reader' ? route.url : ''} onOpen={openInReader} />
        <ConnectionStatus state={state} />
        <button onClick={signOut}>Sign out</button>
      </header>
      <OfflineBanner state={state} />
      <UpdatePrompt />
      {route.kind === 'sessions' &&
        (session ? <SessionView client={client} session={session} onBack={() => setSession(null)} /> : <SessionList client={client} onOpen={setSession} />)}
      {route.kind === 'files' && <FilesView client={client} projectDirectory={route.projectDirectory} path={route.path} navigate={navigate} />}
      {route.kind === 'preview' && (
        // A preview's hbcode.html.open can be sent by the page with no click at all: not granted, so the reader asks first (SEC-5).
        <PreviewPane key={`${route.projectDirectory}\0${route.path}`} client={client} projectDirectory={route.projectDirectory} path={route.path} onOpenWeb={(url) => navigate({ kind: 'reader', url })} />
      )}
      {route.kind === 'accounts' && <AccountsView client={client} />}
      {route.kind === 'reader' && <ReaderView client={client} url={route.url} onOpen={openInReader} onCancel={() => navigate({ kind: 'sessions' })} />}
    </div>
  );
}
