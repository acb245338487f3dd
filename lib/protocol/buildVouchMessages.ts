import { z } from 'zod';

const Digest = z.string().regex(/^[0-9a-f]{64}$/);

/**
 * Between the app's pages and its service workers (RLY-5). A new worker, while installing, asks
 * the pages the installed worker controls for the desktop's build digest (`app.build`), through
 * a MessageChannel; it installs only when that digest is its own.
 */
export const VouchRequestSchema = z.object({ type: z.literal('HBCODE_VOUCH_REQUEST'), digest: Digest });
export type VouchRequest = z.infer<typeof VouchRequestSchema>;

/** The page's answer on the request's port: the desktop's digest, from `app.build`. */
export const VouchAnswerSchema = z.object({ type: z.literal('HBCODE_VOUCH_ANSWER'), digest: Digest });
export type VouchAnswer = z.infer<typeof VouchAnswerSchema>;

/** Worker → every page: the installing build was refused, with both digests (shown to the user). */
export const BuildRefusedSchema = z.object({ type: z.literal('HBCODE_BUILD_REFUSED'), offered: Digest, vouched: Digest });
export type BuildRefused = z.infer<typeof BuildRefusedSchema>;

/** Page → a worker, with a port: which build it is and how it was let in. */
export const BuildStatusRequestSchema = z.object({ type: z.literal('HBCODE_BUILD_STATUS') });
export type BuildStatusRequest = z.infer<typeof BuildStatusRequestSchema>;

/**
 * `desktop`: the desktop vouched for this build; `firstInstall`: no build was installed before
 * (trust on first use); null: not (yet) let in.
 */
export const BuildStatusSchema = z.object({
  type: z.literal('HBCODE_BUILD_STATUS_ANSWER'),
  digest: Digest,
  vouched: z.enum(['desktop', 'firstInstall']).nullable(),
});
export type BuildStatus = z.infer<typeof BuildStatusSchema>;
