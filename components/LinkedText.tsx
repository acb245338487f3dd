'use client';
import type { ReactNode } from 'react';
import { routeHash } from '../lib/client/appRoute';
import { grantReaderOpen } from '../lib/client/readerConsent';

const WEB_ADDRESS = /\bhttps?:\/\/[^\s<>"'`]+/gi;

/** A link to an http(s) address that opens it in the Markdown reader (PRV-6, MD-1). */
export function ReaderLink({ url, children }: { url: string; children: ReactNode }) {
  // A click here is the person's own, so the reader opens it without asking (SEC-5).
  return (
    <a href={routeHash({ kind: 'reader', url })} onClick={() => grantReaderOpen(url)} data-reader-link>
      {children}
    </a>
  );
}

/** Plain text whose http(s) addresses open in the Markdown reader (PRV-6, MD-1). */
export function LinkedText({ text }: { text: string }) {
  const parts: (string | { url: string })[] = [];
  let last = 0;
  for (const match of text.matchAll(WEB_ADDRESS)) {
    // Sentence punctuation right after an address is not part of it.
    const url = match[0].replace(/[.,;:!?)\]]+$/, '');
    parts.push(text.slice(last, match.index), { url });
    last = match.index + url.length;
  }
  parts.push(text.slice(last));
  return (
    <>
      {parts.map((part, i) =>
        typeof part === 'string' ? (
          part
        ) : (
          <ReaderLink key={i} url={part.url}>
            {part.url}
          </ReaderLink>
        ),
      )}
    </>
  );
}
