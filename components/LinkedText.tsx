'use client';
import { routeHash } from '../lib/client/appRoute';
import { grantReaderOpen } from '../lib/client/readerConsent';

const WEB_ADDRESS = /\bhttps?:\/\/[^\s<>"'`]+/gi;

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
          // A click here is the person's own, so the reader opens it without asking (SEC-5).
          <a key={i} href={routeHash({ kind: 'reader', url: part.url })} onClick={() => grantReaderOpen(part.url)} data-reader-link>
            {part.url}
          </a>
        ),
      )}
    </>
  );
}
