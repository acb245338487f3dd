// zod/mini: the service worker loads these schemas, and the full zod build would add about
// 450 KB to it (see previewBridge.ts).
import * as z from 'zod/mini';

/**
 * What a push message carries, encrypted for the device (RFC 8291), read by the service worker.
 * `show` names the project and session and the view a tap opens; `withdraw` closes the
 * notification with that tag (an approval answered elsewhere).
 */
export const PushMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('show'),
    event: z.enum(['approval', 'turnFinished', 'failed']),
    tag: z.string(),
    title: z.string(),
    body: z.string(),
    sessionId: z.string(),
    approvalId: z.nullable(z.string()),
    /** The app address a tap opens (the session, and its approval). */
    url: z.string(),
  }),
  z.object({ type: z.literal('withdraw'), tag: z.string() }),
]);
export type PushMessage = z.infer<typeof PushMessageSchema>;

/** The key that marks a Declarative Web Push message (WebKit, iOS and iPadOS 18.4+). */
export const DECLARATIVE_PUSH_KEY = 8030;

/**
 * What a push carries on the wire (PWA-7): a Declarative Web Push message, which iOS 18.4+ shows
 * by itself even when no service worker runs, with our message in the notification's `data`.
 * `mutable` lets a worker that runs change it first (withdraw it, keep it off the screen that
 * shows its session); every other browser's worker shows the same from its `push` handler.
 */
export const PushPayloadSchema = z.object({
  web_push: z.literal(DECLARATIVE_PUSH_KEY),
  notification: z.object({
    title: z.string(),
    body: z.string(),
    /** An absolute address on the app origin; relative only for a subscription older than PWA-7. */
    navigate: z.string(),
    tag: z.string(),
    silent: z.optional(z.boolean()),
    data: z.object({ message: PushMessageSchema }),
  }),
  mutable: z.optional(z.boolean()),
});
export type PushPayload = z.infer<typeof PushPayloadSchema>;

/** What a shown notification keeps, for its tap (PUSH-1). */
export const NotificationDataSchema = z.object({
  url: z.string(),
  sessionId: z.string(),
  approvalId: z.nullable(z.string()),
});

/**
 * Service worker → page: `WHICH_SESSION` asks (with a reply port) which session the page shows,
 * so news of that session is not notified where the user is looking at it; `OPEN_SESSION` opens
 * a tapped notification's address in a page that is already open.
 */
export const WorkerToPageMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('WHICH_SESSION') }),
  z.object({ type: z.literal('OPEN_SESSION'), url: z.string() }),
]);
export type WorkerToPageMessage = z.infer<typeof WorkerToPageMessageSchema>;

/** Page → service worker, on the reply port: the session on screen, null when none (or hidden). */
export const ViewingSessionMessageSchema = z.object({
  type: z.literal('VIEWING_SESSION'),
  sessionId: z.nullable(z.string()),
});
