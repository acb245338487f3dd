import type { IncomingMessage } from 'node:http';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { pipeline, type Readable, type Transform } from 'node:stream';
import zlib from 'node:zlib';
import { MAX_WEB_PAGE_BYTES, MAX_WEB_REDIRECTS, WEB_PAGE_TIMEOUT_MS } from '../../../lib/protocol/files';
import { HTML_CONTENT_TYPES, type WebPage } from '../../../lib/protocol/webPage';
import { RuntimeError } from '../errors';
import { refusedRangeOf } from './destinationRange';
import { blockedAddressError, guardedLookup, literalAddress, type DestinationRange } from './guardedLookup';
import { decodePage, detectPageCharset } from './pageCharset';
import { errorOfRequest, webFetchError } from './webFetchError';

export interface WebFetchLimits {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  /** Name resolution; the system's by default. */
  lookup?: LookupFunction;
  /** Which addresses are refused (SEC-5): every non-public one by default, none with the opt-in. */
  destinationRange: DestinationRange;
}

export const DEFAULT_WEB_FETCH_LIMITS: WebFetchLimits = {
  maxBytes: MAX_WEB_PAGE_BYTES,
  timeoutMs: WEB_PAGE_TIMEOUT_MS,
  maxRedirects: MAX_WEB_REDIRECTS,
  destinationRange: refusedRangeOf,
};

/** `--allow-private-fetch`: the person runs local servers they want to read (SEC-5 opt-in). */
export const PRIVATE_FETCH_LIMITS: WebFetchLimits = { ...DEFAULT_WEB_FETCH_LIMITS, destinationRange: () => null };

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** What one guarded fetch is for: the Accept header, the word for it in errors, and which content types it takes. */
export interface FetchPurpose {
  accept: string;
  noun: 'page' | 'image';
  /** Throws for a declared content type it does not take (the body is not read then). */
  checkType(mimeType: string): void;
}

export interface FetchedBody {
  url: URL;
  status: number;
  /** The Content-Type header as sent, and its lower-case type alone ('' when none). */
  contentType: string;
  mimeType: string;
  bytes: Uint8Array;
  redirects: string[];
}

/**
 * One GET of a hostile address (SEC-5): only http(s), only public addresses unless opted in, every
 * redirect hop checked again, one deadline for the whole fetch, the body counted as it streams
 * (and after decompression) so a huge answer is cut off without being held, no cookies or
 * credentials.
 */
export async function fetchGuarded(
  address: string,
  limits: WebFetchLimits,
  purpose: FetchPurpose,
): Promise<FetchedBody> {
  let url = parseWebUrl(address);
  const redirects: string[] = [];
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), limits.timeoutMs);
  try {
    for (;;) {
      const response = await requestPage(url, deadline.signal, limits, redirects.at(-1) ?? null, purpose.accept);
      const location = response.headers.location;
      if (REDIRECT_STATUSES.has(response.statusCode ?? 0) && location) {
        response.destroy();
        if (redirects.length >= limits.maxRedirects) {
          throw webFetchError(
            'too_many_redirects',
            `Stopped after ${limits.maxRedirects} redirects (last: ${url.href}).`,
            { redirects: [...redirects, url.href] },
          );
        }
        redirects.push(url.href);
        url = parseWebUrl(location, url);
        continue;
      }
      const contentType = response.headers['content-type'] ?? '';
      const mimeType = contentType.split(';', 1)[0]!.trim().toLowerCase();
      try {
        purpose.checkType(mimeType);
      } catch (error) {
        response.destroy();
        throw error;
      }
      const bytes = await readLimitedBody(response, limits.maxBytes, deadline.signal, purpose.noun);
      return { url, status: response.statusCode ?? 0, contentType, mimeType, bytes, redirects };
    }
  } catch (error) {
    if (deadline.signal.aborted)
      throw webFetchError('timeout', `The ${purpose.noun} did not arrive within ${limits.timeoutMs / 1000} s.`, {
        url: url.href,
      });
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

const PAGE: FetchPurpose = {
  accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1',
  noun: 'page',
  checkType(mimeType) {
    if (mimeType && !HTML_CONTENT_TYPES.includes(mimeType)) {
      throw webFetchError(
        'not_html',
        `This address is not a web page (${mimeType}); only HTML pages open as Markdown.`,
        { contentType: mimeType },
      );
    }
  },
};

/** Fetches an HTML page for the reader (MD-1), guarded as `fetchGuarded` says. */
export async function fetchWebPage(
  address: string,
  limits: WebFetchLimits = DEFAULT_WEB_FETCH_LIMITS,
): Promise<WebPage> {
  const { url, status, contentType, mimeType, bytes, redirects } = await fetchGuarded(address, limits, PAGE);
  if (!mimeType && !looksLikeHtml(bytes))
    throw webFetchError('not_html', 'This address did not answer with a web page; only HTML pages open as Markdown.');
  const { charset } = detectPageCharset(contentType, bytes);
  const text = decodePage(bytes, charset);
  return {
    finalUrl: url.href,
    status,
    contentType: mimeType || 'text/html',
    dataBase64: Buffer.from(text, 'utf8').toString('base64'),
    charset,
    redirects,
  };
}

/** An http(s) address, resolved against `base` for a redirect's Location. */
function parseWebUrl(address: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(address.trim(), base);
  } catch {
    throw webFetchError('bad_url', `This is not a web address: ${JSON.stringify(address.slice(0, 200))}.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    const where = base ? ` (a redirect from ${base.href})` : '';
    throw webFetchError(
      'unsupported_scheme',
      `Only http and https pages open as Markdown, not ${url.protocol}${where}.`,
      { scheme: url.protocol },
    );
  }
  // No ambient authority: credentials in an address would be sent to whoever the page redirects to.
  if (url.username || url.password)
    throw webFetchError('bad_url', 'Addresses with a user name or password are not fetched.');
  url.hash = '';
  return url;
}

function requestPage(
  url: URL,
  signal: AbortSignal,
  limits: WebFetchLimits,
  redirectedFrom: string | null,
  accept: string,
): Promise<IncomingMessage> {
  const transport = url.protocol === 'https:' ? https : http;
  // NOTE: a socket to an IP literal never calls `lookup`, so a literal is checked here.
  const literal = literalAddress(url);
  const literalRange = literal && limits.destinationRange(literal);
  if (literal && literalRange)
    return Promise.reject(blockedAddressError(literal, literal, literalRange, redirectedFrom));
  return new Promise((resolve, reject) => {
    const request = transport.get(
      url,
      {
        signal,
        lookup: guardedLookup(limits.lookup, limits.destinationRange, redirectedFrom),
        agent: false,
        headers: {
          'user-agent': 'Mozilla/5.0 (compatible; HBCodeReader/1.0)',
          accept,
          'accept-encoding': 'gzip, deflate, br',
        },
      },
      resolve,
    );
    request.on('error', (error) => reject(signal.aborted ? error : errorOfRequest(error, url)));
  });
}

async function readLimitedBody(
  response: IncomingMessage,
  maxBytes: number,
  signal: AbortSignal,
  noun: string,
): Promise<Uint8Array> {
  const declared = Number(response.headers['content-length']);
  const encoding = (response.headers['content-encoding'] ?? 'identity').toLowerCase().trim();
  const tooLarge = () =>
    webFetchError('too_large', `The ${noun} is larger than ${maxBytes / 1024 / 1024} MiB.`, { maxBytes });
  if (encoding === 'identity' && Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    throw tooLarge();
  }
  const body: Readable = decompressed(response, encoding);
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of body) {
      const buffer = chunk as Buffer;
      total += buffer.length;
      // Counted after decompression, so a small compressed bomb is cut off too.
      if (total > maxBytes) throw tooLarge();
      chunks.push(buffer);
    }
  } catch (error) {
    if (signal.aborted || error instanceof RuntimeError) throw error;
    throw webFetchError(
      'connection',
      `The ${noun} stopped arriving: ${error instanceof Error ? error.message : String(error)}.`,
    );
  } finally {
    response.destroy();
    if (body !== response) body.destroy();
  }
  return Buffer.concat(chunks, total);
}

/**
 * NOTE: joined with `pipeline`, not `pipe`: a response that stalls and is dropped at the deadline,
 * or that is cut off, must end the decompressor too, or the read waits forever (SEC-9).
 */
function decompressed(response: IncomingMessage, encoding: string): Readable {
  const decompressor = decompressorOf(encoding);
  if (!decompressor) return response;
  // Errors reach the reader through the decompressor, which pipeline destroys with them.
  return pipeline(response, decompressor, () => {});
}

function decompressorOf(encoding: string): Transform | null {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      return null;
  }
}

function looksLikeHtml(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.subarray(0, 512))
    .toString('latin1')
    .replace(/^\ufeff|^\xef\xbb\xbf/, '')
    .trimStart();
  return /^<(!doctype\s+html|html|head|body|!--)/i.test(head);
}
