'use client';
import type { MouseEvent, ReactNode } from 'react';
import Markdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { safeMarkdownUrl } from '../lib/links/safeLinks';
import { HighlightedCode } from './files/HighlightedCode';
import './markdown.css';

export interface MarkdownViewProps {
  markdown: string;
  /** Where relative links and images resolve from. */
  baseUrl?: string;
  /** Called instead of following a link, with the safe, resolved address. */
  onLinkClick?: (href: string) => void;
  /** A relative link of a project file, rendered by the file viewer (FILE-4); undefined keeps the default. */
  renderRelativeLink?: (href: string, children: ReactNode) => ReactNode;
  /** A relative image of a project file, read by the file viewer (FILE-4); undefined keeps the default. */
  renderRelativeImage?: (src: string, alt: string) => ReactNode;
  /** An http(s) image, drawn some other way than a request the page makes itself (the reader's, MD-5). */
  renderImage?: (src: string, alt: string) => ReactNode;
}

const isRelative = (url: string) => !/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(url) && !url.startsWith('//');

/**
 * Markdown rendered as React elements (FILE-4, SEC-3): GitHub-flavoured, raw HTML skipped, links
 * only http(s) or relative, fenced code highlighted in the worker.
 */
export function MarkdownView({
  markdown,
  baseUrl,
  onLinkClick,
  renderRelativeLink,
  renderRelativeImage,
  renderImage,
}: MarkdownViewProps) {
  const components: Components = {
    a({ href, children }) {
      if (!href) return <span>{children}</span>;
      if (renderRelativeLink && isRelative(href)) return renderRelativeLink(href, children);
      const external = /^https?:/i.test(href);
      const onClick = onLinkClick
        ? (event: MouseEvent<HTMLAnchorElement>) => {
            event.preventDefault();
            onLinkClick(href);
          }
        : undefined;
      return (
        <a
          href={href}
          onClick={onClick}
          rel="noopener noreferrer nofollow"
          referrerPolicy="no-referrer"
          target={external && !onLinkClick ? '_blank' : undefined}
        >
          {children}
        </a>
      );
    },
    code({ className, children }) {
      const language = /\blanguage-([\w+#.-]+)/.exec(className ?? '')?.[1];
      const text = String(children);
      return language ? (
        <HighlightedCode code={text.replace(/\n$/, '')} language={language} />
      ) : (
        <code className={className}>{children}</code>
      );
    },
    img({ src, alt }) {
      if (renderRelativeImage && typeof src === 'string' && src !== '' && isRelative(src))
        return renderRelativeImage(src, alt ?? '');
      // NOTE: an image is a request the document makes by itself; show it only from a safe address.
      const safe = typeof src === 'string' ? safeMarkdownUrl(src, baseUrl) : null;
      if (safe && renderImage && /^https?:/i.test(safe)) return renderImage(safe, alt ?? '');
      return safe ? <img src={safe} alt={alt ?? ''} loading="lazy" referrerPolicy="no-referrer" /> : <span>{alt}</span>;
    },
  };
  return (
    <div className="markdown-view">
      <Markdown
        remarkPlugins={[remarkGfm]}
        skipHtml
        urlTransform={(url) => safeMarkdownUrl(url, baseUrl) ?? ''}
        components={components}
      >
        {markdown}
      </Markdown>
    </div>
  );
}
