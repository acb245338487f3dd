'use client';
// xterm.js loads the first time a terminal session opens (UX-5, TERM-6).
import dynamic from 'next/dynamic';
import { ViewLoading } from './ViewLoading';

export const LazyTerminalView = dynamic(() => import('../terminal/TerminalView').then((m) => m.TerminalView), {
  ssr: false,
  loading: () => <ViewLoading />,
});
