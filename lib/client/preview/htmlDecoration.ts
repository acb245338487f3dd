/**
 * PRV-4: the two changes an HTML response gets; the file on disk never changes. A
 * `<style id="hb-theme">` with the app theme as `--hb-*` custom properties goes at the end of
 * `<head>` (not when there is no `</head>` or the document is not UTF-8), and the navigation
 * script goes after the document end.
 *
 * SEC-9: the answer is streamed, never held whole. Where the style goes and whether the document
 * is UTF-8 are decided from a bounded prefix (HEAD_SEARCH_BYTES); the rest of the file passes
 * through piece by piece, so a previewed 300 MiB page costs the app a few chunks, not its heap.
 */
export interface HtmlDecoration {
  /** `--hb-*` name → value. */
  theme: Record<string, string>;
  /** The navigation script's source (see navigationScript.ts). */
  navigationScript: string;
}

/** `</head>` and the charset are looked for in this many first bytes; a longer head gets no theme. */
export const HEAD_SEARCH_BYTES = 1024 * 1024;

const META_CHARSET = /<meta[^>]+charset\s*=\s*["']?\s*([a-z0-9_-]+)/i;
const HEAD_END = /<\/head\s*>/i;

function isUtf16(bytes: Uint8Array): boolean {
  return (bytes[0] === 0xfe && bytes[1] === 0xff) || (bytes[0] === 0xff && bytes[1] === 0xfe);
}

/**
 * UTF-8 by BOM, or no other charset declared and the bytes decode as UTF-8. `complete` says the
 * bytes are the whole document; when they are only its prefix, a sequence cut at the end is fine.
 */
export function isUtf8Html(bytes: Uint8Array, complete = true): boolean {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return true;
  if (isUtf16(bytes)) return false;
  const declared = META_CHARSET.exec(new TextDecoder('latin1').decode(bytes.subarray(0, 1024)))?.[1]?.toLowerCase();
  if (declared && declared !== 'utf-8' && declared !== 'utf8') return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: !complete });
    return true;
  } catch {
    return false;
  }
}

/** A custom property value that cannot end the style element or the rule. */
const SAFE_VALUE = /^[^<>{};\\]*$/;

function themeStyle(theme: Record<string, string>): string {
  const declarations = Object.entries(theme)
    .filter(([name, value]) => /^--hb-[a-z0-9-]+$/.test(name) && SAFE_VALUE.test(value))
    .map(([name, value]) => `${name}:${value.trim()}`)
    .join(';');
  return `<style id="hb-theme">:root{${declarations}}</style>`;
}

/** What one HTML answer gets, decided before its first byte is sent. */
export interface DecorationPlan {
  utf8: boolean;
  /** Byte offset of `</head>` in the file, where the style goes; null: no style. */
  styleAt: number | null;
  style: Uint8Array;
  script: Uint8Array;
  /** The decorated answer's length, for Content-Length. */
  size: number;
}

/**
 * Plans the decoration of a document of `size` bytes from its first bytes (`prefix`, any
 * length; only HEAD_SEARCH_BYTES of it are looked at).
 */
export function planDecoration(prefix: Uint8Array, size: number, decoration: HtmlDecoration): DecorationPlan {
  const none = new Uint8Array(0);
  // NOTE: appended ASCII would be garbage in a UTF-16 document; such a page gets no script.
  if (isUtf16(prefix)) return { utf8: false, styleAt: null, style: none, script: none, size };
  const encoder = new TextEncoder();
  const script = encoder.encode(`<script>${decoration.navigationScript}</script>`);
  const searched = prefix.subarray(0, Math.min(prefix.byteLength, HEAD_SEARCH_BYTES));
  const utf8 = isUtf8Html(searched, searched.byteLength >= size);
  // Latin-1 maps each byte to one character, so the match index is the byte offset, and
  // `</head>` is ASCII, so it is never the middle of a UTF-8 sequence.
  const headEnd = utf8 ? new TextDecoder('latin1').decode(searched).search(HEAD_END) : -1;
  if (headEnd < 0) return { utf8, styleAt: null, style: none, script, size: size + script.byteLength };
  const style = encoder.encode(themeStyle(decoration.theme));
  return { utf8, styleAt: headEnd, style, script, size: size + style.byteLength + script.byteLength };
}

/** The file's pieces (in order, from offset 0) with the style spliced in and the script after the end. */
export async function* decoratedPieces(
  plan: DecorationPlan,
  pieces: AsyncIterable<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  let offset = 0;
  for await (const piece of pieces) {
    const at = plan.styleAt;
    if (at !== null && at >= offset && at < offset + piece.byteLength) {
      if (at > offset) yield piece.subarray(0, at - offset);
      yield plan.style;
      yield piece.subarray(at - offset);
    } else if (piece.byteLength > 0) yield piece;
    offset += piece.byteLength;
  }
  if (plan.script.byteLength > 0) yield plan.script;
}
