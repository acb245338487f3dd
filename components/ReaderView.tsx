'use client';
import { useEffect, useState } from 'react';
import type { PageView } from '../lib/markdown/convertedPage';
import { convertOtherView, readWebPage, type ReaderPage } from '../lib/client/readWebPage';
import type { RpcClient } from '../lib/client/rpcClient';
import { MarkdownView } from './MarkdownView';

type ReaderState = { kind: 'loading' } | { kind: 'failed'; message: string } | { kind: 'missing' } | { kind: 'shown'; page: ReaderPage; view: PageView };

/**
 * A web page as Markdown (MD-1…MD-3): fetched by the runtime, converted in a worker, shown without
 * raw HTML (SEC-3); links open in the reader again, the original opens in a new tab.
 */
export function ReaderView({ client, url, onOpen }: { client: RpcClient | null; url: string; onOpen: (url: string) => void }) {
  const [state, setState] = useState<ReaderState>({ kind: 'loading' });
  const [switchError, setSwitchError] = useState<string | null>(null);
  const connected = client !== null;

  useEffect(() => {
    let live = true;
    setState({ kind: 'loading' });
    setSwitchError(null);
    readWebPage(client, url).then(
      (page) => live && setState(page ? { kind: 'shown', page, view: page.preferred } : { kind: 'missing' }),
      (error: unknown) => live && setState({ kind: 'failed', message: error instanceof Error ? error.message : String(error) }),
    );
    return () => {
      live = false;
    };
    // NOTE: keyed on being connected, not on the client object: read again when the connection comes back.
  }, [url, connected]);

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
        {state.kind === 'loading' && <p className="muted">Loading {url} …</p>}
        {state.kind === 'missing' && <p className="muted">This page was not saved on this device. Connect to the computer to open it.</p>}
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
              {state.page.savedAt !== null && <span className="muted">Saved {new Date(state.page.savedAt).toLocaleString()}</span>}
            </div>
            {state.page.refreshError && (
              <p className="muted" role="note">
                Showing the saved copy: {state.page.refreshError}
              </p>
            )}
            {switchError && (
              <p className="error" role="alert">
                {switchError}
              </p>
            )}
            <article data-view={state.view}>
              <MarkdownView markdown={shown.markdown} baseUrl={state.page.finalUrl} onLinkClick={onOpen} />
            </article>
          </>
        )}
      </div>
    </div>
  );
}
