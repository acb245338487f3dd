'use client';
// The diff viewer (the diff library and the highlighted lines) loads with the first file change
// shown (UX-5).
import dynamic from 'next/dynamic';

export const LazyFileDiff = dynamic(() => import('../timeline/diff/FileDiff').then((m) => m.FileDiff), {
  ssr: false,
  loading: () => null,
});
