'use client';
import { useEffect, useState } from 'react';
import { listSavedReaderPages, type SavedReaderPageSummary } from '../../lib/client/readerCache';
import { routeHash } from '../../lib/client/appRoute';
import { shortTime } from '../../lib/client/shortTime';
import { OpenWebPageForm } from '../OpenWebPageForm';
import './reader.css';

/** The host a saved page came from, for its list line. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/**
 * `#/web` (MD-1, PWA-3): type an address to read it as Markdown, and the pages this device saved,
 * most lately read first, which open offline too. Listing them fetches nothing.
 */
export function WebPagesScreen({ onOpen }: { onOpen: (url: string) => void }) {
  const [pages, setPages] = useState<SavedReaderPageSummary[] | null>(null);
  useEffect(() => {
    let live = true;
    listSavedReaderPages().then(
      (found) => live && setPages(found),
      (error: unknown) => {
        console.warn('Could not list the saved pages', error);
        if (live) setPages([]);
      },
    );
    return () => {
      live = false;
    };
  }, []);
  const now = Date.now();
  return (
    <main className="scroll web-pages">
      <section className="card" aria-labelledby="web-open-title">
        <h2 id="web-open-title">Read a web page</h2>
        <p className="muted">
          Your computer fetches the page; this device shows it as Markdown and keeps it for reading offline.
        </p>
        <OpenWebPageForm onOpen={onOpen} />
      </section>
      <section className="card" aria-labelledby="web-saved-title">
        <h2 id="web-saved-title">Saved on this device</h2>
        {pages === null && <p className="muted">Loading…</p>}
        {pages?.length === 0 && <p className="muted">No pages yet. A page you read is saved here.</p>}
        {pages && pages.length > 0 && (
          <ul className="saved-pages" aria-label="Saved pages">
            {pages.map((page) => (
              <li key={page.url}>
                <a
                  href={routeHash({ kind: 'reader', url: page.url })}
                  onClick={(event) => {
                    event.preventDefault();
                    onOpen(page.url);
                  }}
                >
                  <span className="saved-page-title">{page.title || page.url}</span>
                  <span className="muted saved-page-meta">
                    <bdi>{hostOf(page.finalUrl)}</bdi> ·{' '}
                    <time title={new Date(page.savedAt).toLocaleString()}>saved {shortTime(page.savedAt, now)}</time>
                  </span>
                </a>
              </li>
            ))}
          </ul>
        )}
      </section>
    </main>
  );
}
