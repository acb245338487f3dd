'use client';
import Markdown, { defaultUrlTransform } from 'react-markdown';
import remarkGfm from 'remark-gfm';

export interface MarkdownViewProps {
  markdown: string;
  /** Relative links and images resolve against it. */
  baseUrl?: string;
  onLinkClick?: (href: string) => void;
}

/** Only http(s) addresses and in-page anchors survive; everything else (javascript:, data:) is dropped. */
function safeUrl(url: string, baseUrl: string | undefined): string {
  if (url.startsWith('#')) return url;
  try {
    const absolute = new URL(defaultUrlTransform(url), baseUrl);
    return absolute.protocol === 'http:' || absolute.protocol === 'https:' ? absolute.href : '';
  } catch {
    return '';
  }
}

/**
 * Markdown as the app shows it: GFM, and never raw HTML (SEC-3: converted web pages are hostile).
 * Code blocks are plain `<pre><code class="language-x">`.
 */
export function MarkdownView({ markdown, baseUrl, onLinkClick }: MarkdownViewProps) {
  return (
    <div className="markdown">
      <Markdown
        remarkPlugins={[remarkGfm]}
        skipHtml
        urlTransform={(url) => safeUrl(url, baseUrl)}
        components={{
          a: ({ href, children, title }) => (
            <a
              href={href || undefined}
              title={title}
              rel="noopener noreferrer"
              onClick={(event) => {
                if (!href || href.startsWith('#') || !onLinkClick) return;
                event.preventDefault();
                onLinkClick(href);
              }}
            >
              {children}
            </a>
          ),
        }}
      >
        {markdown}
      </Markdown>
    </div>
  );
}
