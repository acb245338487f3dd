'use client';
// react-markdown and remark are loaded with the first Markdown to show (UX-5). Until then the
// text shows as it is, so nothing appears blank meanwhile.
import { lazy, Suspense } from 'react';
import type { MarkdownViewProps } from '../MarkdownView';

const MarkdownView = lazy(() => import('../MarkdownView').then((m) => ({ default: m.MarkdownView })));

export function LazyMarkdownView(props: MarkdownViewProps) {
  return (
    <Suspense fallback={<p className="markdown-pending">{props.markdown}</p>}>
      <MarkdownView {...props} />
    </Suspense>
  );
}
