'use client';
// The output viewer (virtual list, find, scrubber) loads the first time a command's output is
// opened (UX-5).
import dynamic from 'next/dynamic';
import { ViewLoading } from './ViewLoading';

export const LazyOutputViewer = dynamic(() => import('../OutputViewer').then((m) => m.OutputViewer), {
  ssr: false,
  loading: () => <ViewLoading />,
});
