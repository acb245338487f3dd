import { z } from 'zod';

/** Which events notify a device (PUSH-1); each device chooses its own. */
export const PushEventsSchema = z
  .object({
    /** An approval is waiting. */
    approval: z.boolean(),
    /** A turn finished. */
    turnFinished: z.boolean(),
    /** A command or a turn failed. */
    failed: z.boolean(),
  })
  .strict();
export type PushEvents = z.infer<typeof PushEventsSchema>;
export type PushEventKind = keyof PushEvents;

/** A browser's PushSubscription as `toJSON()` gives it; only HTTPS push services are accepted. */
export const PushSubscriptionSchema = z
  .object({
    endpoint: z.url({ protocol: /^https$/ }).max(2048),
    keys: z.object({ p256dh: z.string().min(1).max(200), auth: z.string().min(1).max(100) }),
  })
  .strip();
export type PushSubscriptionKeys = z.infer<typeof PushSubscriptionSchema>;

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
    approvalId: z.string().nullable(),
    /** The app address a tap opens (the session, and its approval). */
    url: z.string(),
  }),
  z.object({ type: z.literal('withdraw'), tag: z.string() }),
]);
export type PushMessage = z.infer<typeof PushMessageSchema>;

/** The page tells its service worker which session it shows, so that session's own news is not notified there. */
export const ViewingSessionMessageSchema = z.object({ type: z.literal('VIEWING_SESSION'), sessionId: z.string().nullable() });
