/**
 * Which charset an HTML page is written in (MD-1), in the HTML standard's order: a byte order
 * mark, then the HTTP header, then a `<meta charset>` / `http-equiv` in the first bytes, then
 * UTF-8 when the bytes are valid UTF-8, else windows-1252 (what browsers assume).
 */
type CharsetSource = 'bom' | 'header' | 'meta' | 'utf8-valid' | 'default';

export interface DetectedCharset {
  /** A WHATWG encoding name TextDecoder accepts, e.g. "utf-8", "shift_jis", "windows-1252". */
  charset: string;
  source: CharsetSource;
}

/** How far the `<meta>` prescan looks; the standard says 1024 bytes, real pages put it later. */
const META_PRESCAN_BYTES = 4096;

export function detectPageCharset(contentType: string, bytes: Uint8Array): DetectedCharset {
  const bom = charsetFromBom(bytes);
  if (bom) return { charset: bom, source: 'bom' };
  const header = canonicalCharset(charsetParameter(contentType));
  if (header) return { charset: header, source: 'header' };
  const meta = canonicalCharset(charsetFromMeta(bytes.subarray(0, META_PRESCAN_BYTES)));
  // NOTE: a page cannot truly be UTF-16 if its ASCII meta tag was readable; the standard maps it to UTF-8.
  if (meta) return { charset: meta.startsWith('utf-16') ? 'utf-8' : meta, source: 'meta' };
  if (isValidUtf8(bytes)) return { charset: 'utf-8', source: 'utf8-valid' };
  return { charset: 'windows-1252', source: 'default' };
}

/** The page as text; invalid sequences become U+FFFD and a leading byte order mark is dropped. */
export function decodePage(bytes: Uint8Array, charset: string): string {
  // NOTE: Node's TextDecoder reads windows-1252 as ISO-8859-1 (0x80 → U+0080, not €), so it is decoded here.
  if (charset === 'windows-1252') return decodeWindows1252(bytes);
  return new TextDecoder(charset).decode(bytes);
}

/** Code points of bytes 0x80…0x9F in windows-1252 (the WHATWG index); the rest equal their byte. */
const WINDOWS_1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

function decodeWindows1252(bytes: Uint8Array): string {
  const latin1 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  return latin1.replace(/[\x80-\x9f]/g, (c) => String.fromCharCode(WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80]!));
}

function charsetFromBom(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  return null;
}

function charsetParameter(contentType: string): string | null {
  const match = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(contentType);
  return match ? match[2]! : null;
}

/** The encoding a label names, or null for a label TextDecoder does not know. */
function canonicalCharset(label: string | null): string | null {
  if (!label) return null;
  if (label.trim().toLowerCase() === 'x-user-defined') return 'windows-1252';
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return null;
  }
}

function charsetFromMeta(head: Uint8Array): string | null {
  // Latin-1 maps every byte to one character, so ASCII markup reads the same in any ASCII-compatible charset.
  const text = Buffer.from(head)
    .toString('latin1')
    .replace(/<!--[\s\S]*?-->/g, '');
  for (const [tag] of text.matchAll(/<meta\b[^>]*>/gi)) {
    const direct = /\bcharset\s*=\s*["']?\s*([^"'\s/>;]+)/i.exec(tag);
    const isContentType = /\bhttp-equiv\s*=\s*["']?\s*content-type/i.test(tag);
    if (direct && !isContentType) return direct[1]!;
    if (isContentType) {
      const content = /\bcontent\s*=\s*(["'])([^"']*)\1/i.exec(tag)?.[2] ?? '';
      const found = charsetParameter(`x;${content.replace(/^[^;]*/, '')}`);
      if (found) return found;
    }
  }
  return null;
}

function isValidUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}
