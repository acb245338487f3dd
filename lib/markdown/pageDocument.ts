import { parseHTML } from 'linkedom';
import type { MarkupNode } from './markupNode';

/** An element as the conversion uses it (see markupNode.ts for why not the browser's type). */
export interface MarkupElement extends MarkupNode {
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  querySelectorAll(selectors: string): ArrayLike<MarkupElement>;
  remove(): void;
}

export interface PageDocument {
  title: string;
  documentElement: MarkupElement;
  head: (MarkupElement & { prepend(node: MarkupElement): void }) | null;
  body: MarkupElement | null;
  createElement(name: string): MarkupElement;
  querySelector(selectors: string): MarkupElement | null;
  querySelectorAll(selectors: string): ArrayLike<MarkupElement>;
}

/** Parses a page with linkedom, a DOM that runs in a Web Worker (MD-2: workers have no DOMParser). */
export function parsePageDocument(html: string): PageDocument {
  // NOTE: linkedom types its result as the browser's Window, which the worker realm does not have.
  return (parseHTML(html) as unknown as { document: PageDocument }).document;
}

const SAFE_SCHEMES = new Set(['http:', 'https:', 'mailto:']);

/** The address relative links resolve against: `<base href>` (itself relative to the page), else the page. */
export function baseAddress(document: PageDocument, pageUrl: string): URL | null {
  const page = tryUrl(pageUrl);
  const base = document.querySelector('base[href]')?.getAttribute('href');
  return (base && tryUrl(base, page ?? undefined)) || page;
}

/**
 * Writes the page's absolute base address into its `<base>`, so anything that resolves addresses
 * (Readability does) uses it. NOTE: without one, linkedom in a worker falls back to the worker
 * script's own location and links would point into the app.
 */
export function pinBaseAddress(document: PageDocument, base: URL | null): void {
  if (!base) return;
  const existing = document.querySelector('base[href]');
  if (existing) return existing.setAttribute('href', base.href);
  const element = document.createElement('base');
  element.setAttribute('href', base.href);
  document.head?.prepend(element);
}

/** Links and images under `root` made absolute against `base`; other schemes (javascript:, data:) dropped. */
export function makeAddressesAbsolute(root: MarkupElement, base: URL | null): void {
  const resolve = (value: string): string | null => {
    const trimmed = value.trim();
    // An in-page anchor stays one, so the reader can tell it from a link to another page.
    if (trimmed.startsWith('#')) return trimmed;
    const url = tryUrl(trimmed, base ?? undefined);
    // Without a base (a local file converted on its own) a relative address stays relative.
    if (!url) return base ? null : trimmed;
    return SAFE_SCHEMES.has(url.protocol) ? url.href : null;
  };
  for (const link of Array.from(root.querySelectorAll('a[href]'))) {
    const href = resolve(link.getAttribute('href') ?? '');
    if (href) link.setAttribute('href', href);
    else link.removeAttribute('href');
  }
  for (const media of Array.from(root.querySelectorAll('img[src], source[src], video[poster]'))) {
    for (const name of ['src', 'poster']) {
      const value = media.getAttribute(name);
      if (value === null) continue;
      const absolute = resolve(value);
      if (absolute) media.setAttribute(name, absolute);
      else media.removeAttribute(name);
    }
  }
}

function tryUrl(value: string, base?: URL): URL | null {
  try {
    return new URL(value, base);
  } catch {
    return null;
  }
}
