import crypto from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { mimeTypeForPath } from '../../lib/protocol/mimeTypes';

/** The app's files' content types: the one extension table (lib/protocol/mimeTypes), text in UTF-8. */
function contentTypeOf(file: string): string {
  const type = mimeTypeForPath(file);
  return type.startsWith('text/') ? `${type}; charset=utf-8` : type;
}

interface StaticFile {
  file: string;
  contentType: string;
  headers: Record<string, string>;
  /** The build's precompressed copies of this file, by content coding (UX-5). */
  encoded: Partial<Record<ContentCoding, string>>;
}

type ContentCoding = 'br' | 'gzip';
const CODING_SUFFIX: Record<ContentCoding, string> = { br: 'br', gzip: 'gz' };
/** Preferred first when the client weighs them equally: brotli is the smaller of the two. */
const CODINGS: readonly ContentCoding[] = ['br', 'gzip'];

/**
 * The coding to answer with for an `Accept-Encoding` header (RFC 9110 §12.5.3): the acceptable
 * one (q > 0, named or through `*`) with the highest weight, brotli on a tie; null for identity.
 */
export function chooseContentCoding(
  header: string | undefined,
  available: Partial<Record<ContentCoding, string>>,
): ContentCoding | null {
  if (!header) return null;
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find((m) => m !== null);
    weights.set(name, q ? Number(q[1]) : 1);
  }
  let best: ContentCoding | null = null;
  let bestWeight = 0;
  for (const coding of CODINGS) {
    if (!available[coding]) continue;
    const weight = weights.get(coding) ?? weights.get('*') ?? 0;
    if (Number.isFinite(weight) && weight > bestWeight) {
      best = coding;
      bestWeight = weight;
    }
  }
  return best;
}

const INLINE_SCRIPT = /<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi;

/**
 * The app's Content-Security-Policy: scripts only from this origin, plus the exact inline
 * bootstrap scripts of this page by hash, so injected markup cannot run code.
 */
/** Filled in per response: the port, and so the preview origins, is known only once listening. */
const FRAME_SOURCE_SLOT = '{frame-src}';

function contentSecurityPolicy(html: string): string {
  const hashes = new Set<string>();
  for (const match of html.matchAll(INLINE_SCRIPT)) {
    if (match[1]!.length > 0)
      hashes.add(`'sha256-${crypto.createHash('sha256').update(match[1]!, 'utf8').digest('base64')}'`);
  }
  return [
    "default-src 'self'",
    `script-src 'self' ${[...hashes].join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' blob: data:",
    "media-src 'self' blob:",
    "connect-src 'self'",
    "worker-src 'self'",
    // Only preview origins may be framed (PRV-5); without them, no frame at all.
    `frame-src ${FRAME_SOURCE_SLOT}`,
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Workers that compile WebAssembly: the highlight worker's Oniguruma engine (HL-1). */
const WASM_WORKERS = new Set(['/workers/highlight.worker.js']);

/**
 * A Web Worker's own Content-Security-Policy (SEC-3): a worker loaded from a URL takes the policy of
 * its script's response, not the page's. Code only from this origin; 'wasm-unsafe-eval' (compiling
 * WebAssembly, never eval of strings) only for the workers that need it.
 */
export function workerContentSecurityPolicy(urlPath: string): string {
  const scripts = WASM_WORKERS.has(urlPath) ? "script-src 'self' 'wasm-unsafe-eval'" : "script-src 'self'";
  return ["default-src 'self'", scripts, "object-src 'none'", "base-uri 'none'"].join('; ');
}

function cacheControl(urlPath: string): string {
  // Next names its build assets by content hash; everything else must be revalidated.
  return urlPath.startsWith('/_next/static/') ? 'public, max-age=31536000, immutable' : 'no-cache';
}

function listFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? listFiles(full) : [full];
  });
}

/**
 * Serves the built web app (`out/`) on the app origin. The file table is built once at start-up,
 * so a request path is only ever looked up, never joined onto the disk (SEC-2). `/x` serves
 * `x.html`; an unknown path gets the app's 404 page.
 */
export class AppStatic {
  private readonly files = new Map<string, StaticFile>();

  /** `frameSource`: the preview origins the app frames (a CSP source expression), or null for none. */
  constructor(
    readonly outDir: string,
    private readonly frameSource: () => string | null = () => null,
  ) {
    if (!fs.existsSync(path.join(outDir, 'index.html'))) return;
    for (const file of listFiles(outDir)) {
      const rel = '/' + path.relative(outDir, file).split(path.sep).join('/');
      // Dot names (the host page's script, the compressed copies) are never served by their path.
      if (rel.split('/').some((part) => part.startsWith('.'))) continue;
      const ext = path.extname(rel);
      const headers: Record<string, string> = { 'cache-control': cacheControl(rel) };
      if (ext === '.html') headers['content-security-policy'] = contentSecurityPolicy(fs.readFileSync(file, 'utf8'));
      if (rel === '/sw.js') headers['service-worker-allowed'] = '/';
      if (/^\/workers\/[^/]+\.worker\.js$/.test(rel))
        headers['content-security-policy'] = workerContentSecurityPolicy(rel);
      const encoded: StaticFile['encoded'] = {};
      for (const coding of CODINGS) {
        const copy = path.join(outDir, '.compressed', `${rel.slice(1)}.${CODING_SUFFIX[coding]}`);
        if (fs.existsSync(copy)) encoded[coding] = copy;
      }
      // Caches must keep the codings apart once any exists (UX-5).
      if (Object.keys(encoded).length > 0) headers.vary = 'Accept-Encoding';
      const entry = { file, contentType: contentTypeOf(file), headers, encoded };
      this.files.set(rel, entry);
      if (ext === '.html') {
        const clean = rel === '/index.html' ? '/' : rel.slice(0, -'.html'.length);
        this.files.set(clean, entry);
      }
    }
  }

  get built(): boolean {
    return this.files.size > 0;
  }

  serve(req: http.IncomingMessage, res: http.ServerResponse, urlPath: string, common: Record<string, string>): void {
    let decoded: string;
    try {
      decoded = decodeURIComponent(urlPath);
    } catch {
      decoded = '';
    }
    const found = this.files.get(decoded);
    const entry = found ?? this.files.get('/404.html');
    if (!entry) {
      res.writeHead(404, { ...common, 'content-type': 'text/plain' }).end('Not found');
      return;
    }
    const chosen = chooseContentCoding(req.headers['accept-encoding'], entry.encoded);
    // A copy older than its file (the file changed after the build) is stale: the file itself goes.
    const coding =
      chosen && fs.statSync(entry.encoded[chosen]!).mtimeMs >= fs.statSync(entry.file).mtimeMs ? chosen : null;
    const body = fs.readFileSync(coding ? entry.encoded[coding]! : entry.file);
    const headers: Record<string, string> = { ...entry.headers, ...(coding ? { 'content-encoding': coding } : {}) };
    if (headers['content-security-policy'])
      headers['content-security-policy'] = headers['content-security-policy'].replace(
        FRAME_SOURCE_SLOT,
        this.frameSource() ?? "'none'",
      );
    res.writeHead(found ? 200 : 404, {
      ...common,
      ...headers,
      'content-type': entry.contentType,
      'content-length': String(body.length),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  }
}
