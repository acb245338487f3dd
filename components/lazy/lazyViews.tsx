'use client';
// The views past the first screen, each loaded the first time it opens (UX-5): the pair screen and
// the session list ship without the timeline, Markdown, diffs, previews, the reader or files.
// The bench's reference build swaps this module for eagerViews.tsx (next.config.mjs) to measure
// the same app without splitting.
import dynamic from 'next/dynamic';
import { ViewLoading } from './ViewLoading';
import { withLoadFailedBoundary } from './LoadFailedBoundary';

const loading = () => <ViewLoading />;

export const SessionView = withLoadFailedBoundary(
  dynamic(() => import('../SessionView').then((m) => m.SessionView), { ssr: false, loading }),
);
export const FilesView = withLoadFailedBoundary(
  dynamic(() => import('../files/FilesView').then((m) => m.FilesView), { ssr: false, loading }),
);
export const GitView = withLoadFailedBoundary(
  dynamic(() => import('../git/GitView').then((m) => m.GitView), { ssr: false, loading }),
);
export const DevicesScreen = withLoadFailedBoundary(
  dynamic(() => import('../devices/DevicesScreen').then((m) => m.DevicesScreen), { ssr: false, loading }),
);
export const AccountsView = withLoadFailedBoundary(
  dynamic(() => import('../agents/AccountsView').then((m) => m.AccountsView), { ssr: false, loading }),
);
export const PreviewPane = withLoadFailedBoundary(
  dynamic(() => import('../PreviewPane').then((m) => m.PreviewPane), { ssr: false, loading }),
);
export const ReaderView = withLoadFailedBoundary(
  dynamic(() => import('../ReaderView').then((m) => m.ReaderView), { ssr: false, loading }),
);
export const SettingsScreen = withLoadFailedBoundary(
  dynamic(() => import('../settings/SettingsScreen').then((m) => m.SettingsScreen), { ssr: false, loading }),
);
