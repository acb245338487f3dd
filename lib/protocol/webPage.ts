import { z } from 'zod';

/**
 * Why `web.fetchPage` failed (MD-1), carried in the error's `data.reason` next to the stable
 * `data.code`, so a client can say what went wrong without parsing the message.
 */
export type WebFetchFailure =
  | 'bad_url'
  | 'unsupported_scheme'
  | 'dns'
  | 'tls'
  | 'connection'
  | 'timeout'
  | 'too_large'
  | 'not_html'
  | 'too_many_redirects'
  | 'blocked_address';

/** Content types the reader converts; anything else is `not_html`. */
export const HTML_CONTENT_TYPES: readonly string[] = ['text/html', 'application/xhtml+xml'];

/**
 * A fetched page. The runtime decodes the body from its detected `charset` (HTTP header, BOM,
 * `<meta>`), so `dataBase64` is always UTF-8 and the worker never guesses an encoding.
 */
export const WebPageSchema = z.object({
  finalUrl: z.string(),
  status: z.number().int(),
  contentType: z.string(),
  dataBase64: z.string(),
  /** The charset the body was decoded from (WHATWG name, e.g. "shift_jis"). */
  charset: z.string(),
  /** Addresses visited before `finalUrl`, in order. */
  redirects: z.array(z.string()),
});
export type WebPage = z.infer<typeof WebPageSchema>;
