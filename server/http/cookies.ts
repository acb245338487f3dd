import type http from 'node:http';

/**
 * RPC-2, SEC-8: the runtime uses no cookie and never reads one. Previews are subdomains of the
 * app host, so a previewed page can set cookies for the app's domain; grown large enough they
 * would break every request the browser sends. Any answer to a request that carries cookies
 * asks the browser to drop them (only cookies: the app's own storage holds its token).
 */
export const CLEAR_COOKIES_HEADERS: Readonly<Record<string, string>> = { 'clear-site-data': '"cookies"' };

export function cookieClearingHeaders(req: http.IncomingMessage): Readonly<Record<string, string>> {
  return req.headers.cookie === undefined ? {} : CLEAR_COOKIES_HEADERS;
}
