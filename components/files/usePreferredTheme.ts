'use client';
import { useSyncExternalStore } from 'react';
import { preferredTheme } from '../../lib/client/highlightClient';
import type { ThemeName } from '../../lib/highlight/tokens';

const DARK = '(prefers-color-scheme: dark)';

function subscribe(onChange: () => void): () => void {
  const query = window.matchMedia?.(DARK);
  query?.addEventListener('change', onChange);
  return () => query?.removeEventListener('change', onChange);
}

/**
 * The highlighting theme of the system's colour scheme, followed live (HL-3): a device that turns
 * dark while a file, a diff or a code block is open gets it highlighted again in the dark theme,
 * rather than keeping the light theme's colours on a dark background.
 */
export function usePreferredTheme(): ThemeName {
  return useSyncExternalStore(subscribe, preferredTheme, () => 'light');
}
