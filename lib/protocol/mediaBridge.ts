// zod/mini: the service worker loads these schemas (see previewBridge.ts).
import * as z from 'zod/mini';

/**
 * FILE-13: a `<video>` or `<audio>` element of the app plays a rendition from a URL under this
 * path; the app's service worker hands each of its (range) requests to the page that made it,
 * which answers from `files.readMediaRendition` chunks over its connection.
 */
export const MEDIA_RENDITION_PREFIX = '/.hbcode/media/';
export const MEDIA_REQUEST = 'hbcode.media.request';

/** Service worker → page, with a port for the answer (the same parts as a preview's: ResponsePartSchema). */
export const MediaRequestSchema = z.strictObject({
  type: z.literal(MEDIA_REQUEST),
  method: z.enum(['GET', 'HEAD']),
  path: z.string().check(z.startsWith(MEDIA_RENDITION_PREFIX), z.maxLength(200)),
  range: z.nullable(z.string().check(z.maxLength(200))),
});
export type MediaRequest = z.infer<typeof MediaRequestSchema>;
