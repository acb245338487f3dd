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
  | 'not_image'
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

/** The largest image `web.fetchImage` reads (MD-5). */
export const MAX_WEB_IMAGE_BYTES = 8 * 1024 * 1024;

/** An image of a page read as Markdown, fetched by the desktop (MD-5): a raster type its bytes prove. */
export const WebImageSchema = z.object({
  finalUrl: z.string(),
  mimeType: z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif']),
  byteCount: z.number().int().nonnegative(),
  dataBase64: z.string(),
});
export type WebImage = z.infer<typeof WebImageSchema>;
