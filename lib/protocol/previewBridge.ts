// zod/mini: the preview host page and worker load these schemas, and the full zod build would
// add about 450 KB to every preview's first load; mini adds about 12 KB.
import * as z from 'zod/mini';

/**
 * Messages of the preview bridge (PRV-5, PRV-6): app ⇄ host page (window.postMessage and one
 * MessagePort), service worker ⇄ host page, and, per request, service worker ⇄ app over a port
 * of its own. Every receiver parses with these schemas; anything else is dropped.
 */

/** The two paths a preview origin serves itself (ORG-4); a dot name, so no previewed file can take them (PRV-2). */
export const PREVIEW_HOST_PAGE_PATH = '/.hbcode/host.html';
export const PREVIEW_WORKER_PATH = '/.hbcode/sw.js';
/** On a shared preview origin (ORG-3) each preview's paths start with `/p-<id>/`. */
export const SHARED_PREVIEW_PREFIX = /^\/p-([0-9a-f]{32})(\/.*)$/;

export const PREVIEW_CONNECT = 'hbcode.preview.connect';
export const PREVIEW_REQUEST = 'hbcode.preview.request';
export const HTML_OPEN = 'hbcode.html.open';
export const HTML_READY = 'hbcode.html.ready';

const PathSchema = z.string().check(z.startsWith('/'), z.maxLength(8192));
const text = (max: number) => z.string().check(z.maxLength(max));

/** App → host page, once, with the app's end of the bridge port. */
export const PreviewConnectSchema = z.strictObject({ type: z.literal(PREVIEW_CONNECT), documentPath: PathSchema });

/** Service worker → host page → app, with a port for the answer: one request of the previewed page. */
export const PreviewRequestSchema = z.strictObject({
  type: z.literal(PREVIEW_REQUEST),
  method: z.enum(['GET', 'HEAD']),
  path: PathSchema,
  range: z.nullable(text(200)),
});
export type PreviewRequest = z.infer<typeof PreviewRequestSchema>;

/**
 * Host page → app over the bridge port. NOTE: fixed codes, never free text: the previewed page is
 * same-origin with its host page, so anything the host can send, a hostile page may forge, and
 * the app shows only its own words for each code (SEC-3).
 */
export const HostToAppSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('hbcode.preview.hostReady') }),
  /** The host page could not get its service worker running. */
  z.strictObject({ type: z.literal('hbcode.preview.hostFailed'), code: z.enum(['worker_failed']) }),
  /** The inner frame left the preview origin; the host page put the last page back. */
  z.strictObject({ type: z.literal('hbcode.preview.blocked'), code: z.enum(['left_origin']) }),
  /** The answer to a ping: the host page's event loop is running (SEC-9). */
  z.strictObject({ type: z.literal('hbcode.preview.pong'), sequence: z.number().check(z.int()) }),
  PreviewRequestSchema,
]);
export type HostToApp = z.infer<typeof HostToAppSchema>;

/** App → host page over the bridge port. */
export const AppToHostSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('hbcode.preview.navigate'), path: PathSchema }),
  z.strictObject({ type: z.literal('hbcode.preview.reload') }),
  /** Is the preview's event loop running? Unanswered pings mean a page stuck in a loop (SEC-9). */
  z.strictObject({ type: z.literal('hbcode.preview.ping'), sequence: z.number().check(z.int()) }),
  /** The app leaves the preview: blank the page, unregister the worker. */
  z.strictObject({ type: z.literal('hbcode.preview.close') }),
]);
export type AppToHost = z.infer<typeof AppToHostSchema>;

/** App → service worker over a request's port: the head, then one body message per pull, then the end. */
export const ResponsePartSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('head'),
    status: z.number().check(z.int(), z.minimum(200), z.maximum(599)),
    headers: z.record(text(100), text(1000)),
  }),
  z.strictObject({ type: z.literal('body'), bytes: z.instanceof(ArrayBuffer) }),
  z.strictObject({ type: z.literal('end') }),
  /** `read_failed`: the runtime could not read it; `closed`: the app left the preview (fixed codes, SEC-3). */
  z.strictObject({ type: z.literal('fail'), code: z.enum(['read_failed', 'closed']) }),
]);
export type ResponsePart = z.infer<typeof ResponsePartSchema>;

/** Service worker → app over a request's port. */
export const ResponseControlSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('pull') }),
  z.strictObject({ type: z.literal('cancel') }),
]);

/** Previewed page (navigation script) → app window (PRV-4, PRV-6). */
export const HtmlMessageSchema = z.strictObject({ type: z.enum([HTML_OPEN, HTML_READY]), href: text(8192) });
export type HtmlMessage = z.infer<typeof HtmlMessageSchema>;
