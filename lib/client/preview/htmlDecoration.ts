import { concatBytes } from '../concatBytes';

/**
 * PRV-4: the two changes an HTML response gets; the file on disk never changes. A
 * `<style id="hb-theme">` with the app theme as `--hb-*` custom properties goes at the end of
 * `<head>` (not when there is no `</head>` or the document is not UTF-8), and the navigation
 * script goes after the document end.
 */
export interface HtmlDecoration {
  /** `--hb-*` name → value. */
  theme: Record<string, string>;
  /** The navigation script's source (see navigationScript.ts). */
  navigationScript: string;
}

const META_CHARSET = /<meta[^>]+charset\s*=\s*["']?\s*([a-z0-9_-]+)/i;

/** UTF-8 by BOM, or no other charset declared and the bytes decode as UTF-8. */
export function isUtf8Html(bytes: Uint8Array): boolean {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return true;
  if ((bytes[0] === 0xfe && bytes[1] === 0xff) || (bytes[0] === 0xff && bytes[1] === 0xfe)) return false;
  const declared = META_CHARSET.exec(new TextDecoder('latin1').decode(bytes.subarray(0, 1024)))?.[1]?.toLowerCase();
  if (declared && declared !== 'utf-8' && declared !== 'utf8') return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** A custom property value that cannot end the style element or the rule. */
const SAFE_VALUE = /^[^<>{};\\]*$/;

export function themeStyle(theme: Record<string, string>): string {
  const declarations = Object.entries(theme)
    .filter(([name, value]) => /^--hb-[a-z0-9-]+$/.test(name) && SAFE_VALUE.test(value))
    .map(([name, value]) => `${name}:${value.trim()}`)
    .join(';');
  return `<style id="hb-theme">:root{${declarations}}</style>`;
}

export function decorateHtml(bytes: Uint8Array, decoration: HtmlDecoration): { bytes: Uint8Array; utf8: boolean } {
  const encoder = new TextEncoder();
  const script = encoder.encode(`<script>${decoration.navigationScript}</script>`);
  const utf16 = (bytes[0] === 0xfe && bytes[1] === 0xff) || (bytes[0] === 0xff && bytes[1] === 0xfe);
  // NOTE: appended ASCII would be garbage in a UTF-16 document; such a page gets no script.
  if (utf16) return { bytes, utf8: false };
  if (!isUtf8Html(bytes)) return { bytes: concatBytes([bytes, script]), utf8: false };
  const text = new TextDecoder('utf-8').decode(bytes);
  const headEnd = text.search(/<\/head\s*>/i);
  if (headEnd < 0) return { bytes: concatBytes([bytes, script]), utf8: true };
  const before = encoder.encode(text.slice(0, headEnd));
  const after = encoder.encode(text.slice(headEnd));
  return { bytes: concatBytes([before, encoder.encode(themeStyle(decoration.theme)), after, script]), utf8: true };
}
