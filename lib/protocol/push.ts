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
