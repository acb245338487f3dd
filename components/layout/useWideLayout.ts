'use client';
import { useSyncExternalStore } from 'react';

/**
 * UX-6: from 1360 px wide two panes sit side by side (a desktop uses its width, UX-4). Two panes side by side each need room for an 80-column line of
 * 14 px monospace output (about 680 px), so the split starts at twice that; below it one view
 * fills the window, as on a phone. Kept equal to the `(min-width: 1360px)` media query in app/globals.css.
 */
const WIDE_LAYOUT_QUERY = '(min-width: 1360px)';

function subscribe(onChange: () => void): () => void {
  const query = window.matchMedia(WIDE_LAYOUT_QUERY);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

export function useWideLayout(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia(WIDE_LAYOUT_QUERY).matches,
    () => false,
  );
}
