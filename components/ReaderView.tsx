'use client';
import { useEffect, useState } from 'react';
import type { PageView } from '../lib/markdown/convertedPage';
import { convertOtherView, readSavedWebPage, readWebPage, type ReaderPage } from '../lib/client/readWebPage';
import { grantReaderOpen, readerOpenGranted } from '../lib/client/readerConsent';
import type { RpcClient } from '../lib/client/rpcClient';
import { MarkdownView } from './MarkdownView';
import { ReaderImage } from './reader/ReaderImage';
import { ReaderMarkdownActions } from './ReaderMarkdownActions';
import { ReaderConfirmation } from './ReaderConfirmation';

type ReaderState =
  | { kind: 'loading' }
  | { kind: 'failed'; message: string }
  | { kind: 'missing' }
  | { kind: 'unconfirmed' }
  | { kind: 'shown'; page: ReaderPage; view: PageView };

interface Props {
  client: RpcClient | null;
  url: string;
  /** A link in the page, clicked: opens in the reader again. */
  onOpen: (url: string) => void;
  /** The person declined to open an address they did not ask for. */
  onCancel: () => void;
}

/**
 * A web page as Markdown (MD-1…MD-3): fetched by the runtime, converted in a worker, shown without
 * raw HTML (SEC-3); links open in the reader again, the original opens in a new tab. An address
 * the person did not open from the app's own controls is fetched only once they confirm it
 * (SEC-5); until then only what this device saved of it is shown, which fetches nothing.
 */
export function ReaderView({ client, url, onOpen, onCancel }: Props) {
  const [state, setState] = useState<ReaderState>({ kind: 'loading' });
  const [switchError, setSwitchError] = useState<string | null>(null);
  const [showingSource, setShowingSource] = useState(false);
  const [decision, setDecision] = useState(() => ({ url, confirmed: readerOpenGranted(url) }));
  const grantedNow = readerOpenGranted(url);
  // Decided again for each new address, and when the app's own controls open the same one.
  if (decision.url !== url || (grantedNow && !decision.confirmed)) setDecision({ url, confirmed: grantedNow });
  const confirmed = decision.url === url ? decision.confirmed || grantedNow : grantedNow;
  const connected = client !== null;

  useEffect(() => {
    let live = true;
    setState({ kind: 'loading' });
    setSwitchError(null);
    const reading = confirmed ? readWebPage(client, url) : readSavedWebPage(url);
    reading.then(
      (page) =>
        live &&
        setState(
          page ? { kind: 'shown', page, view: page.preferred } : { kind: confirmed ? 'missing' : 'unconfirmed' },
        ),
      (error: unknown) =>
        live && setState({ kind: 'failed', message: error instanceof Error ? error.message : String(error) }),
    );
    return () => {
      live = false;
    };
    // NOTE: keyed on being connected, not on the client object: read again when the connection comes back.
  }, [url, connected, confirmed]);

  function confirm() {
    grantReaderOpen(url);
    setDecision({ url, confirmed: true });
  }

  async function switchTo(view: PageView) {
    if (state.kind !== 'shown') return;
    setSwitchError(null);
    const { page } = state;
    if (page.views[view]) return setState({ kind: 'shown', page, view });
    try {
      const converted = await convertOtherView(page, view);
      page.views[view] = converted;
      setState({ kind: 'shown', page, view });
    } catch (error) {
      setSwitchError(error instanceof Error ? error.message : String(error));
    }
  }

  const shown = state.kind === 'shown' ? state.page.views[state.view] : undefined;
  return (
    <div className="reader" data-testid="reader">
      <div className="scroll">
        {/* Offline there is nothing to confirm: Open could fetch nothing, so only the saved copy shows (or why there is none). */}
        {!confirmed && connected && (
          <ReaderConfirmation url={url} hasSavedCopy={state.kind === 'shown'} onOpen={confirm} onCancel={onCancel} />
        )}
        {!confirmed && !connected && state.kind === 'unconfirmed' && (
          <p className="muted">This page was not saved on this device. Connect to the computer to open it.</p>
        )}
        {state.kind === 'loading' && confirmed && <p className="muted">Loading {url} …</p>}
        {state.kind === 'missing' && (
          <p className="muted">This page was not saved on this device. Connect to the computer to open it.</p>
        )}
        {state.kind === 'failed' && (
          <p className="error" role="alert">
            {state.message}
          </p>
        )}
        {state.kind === 'shown' && shown && (
          <>
            <div className="reader-actions">
              <a href={state.page.finalUrl} target="_blank" rel="noopener noreferrer">
                Open original
              </a>
              {Object.values(state.page.views).some((v) => v?.articleFound) && (
                <span role="group" aria-label="View">
                  <button aria-pressed={state.view === 'article'} onClick={() => void switchTo('article')}>
                    Article
                  </button>
                  <button aria-pressed={state.view === 'fullPage'} onClick={() => void switchTo('fullPage')}>
                    Full page
                  </button>
                </span>
              )}
              <ReaderMarkdownActions
                markdown={shown.markdown}
                title={shown.title}
                showingSource={showingSource}
                onToggleSource={() => setShowingSource(!showingSource)}
              />
              {state.page.savedAt !== null && (
                <span className="muted">Saved {new Date(state.page.savedAt).toLocaleString()}</span>
              )}
            </div>
            {state.page.refreshError && (
              <p className="muted" role="note">
                Showing the saved copy: {state.page.refreshError}
              </p>
            )}
            {shown.notice && (
              <p className="reader-notice" role="note" data-testid="reader-notice">
                {shown.notice}
              </p>
            )}
            {switchError && (
              <p className="error" role="alert">
                {switchError}
              </p>
            )}
            {showingSource ? (
              <pre className="reader-source" data-testid="reader-markdown-text">
                {shown.markdown}
              </pre>
            ) : (
              <article data-view={state.view}>
                <MarkdownView
                  markdown={shown.markdown}
                  baseUrl={state.page.finalUrl}
                  onLinkClick={onOpen}
                  renderImage={(src, alt) => <ReaderImage client={client} src={src} alt={alt} />}
                />
              </article>
            )}
          </>
        )}
      </div>
    </div>
  );
}
