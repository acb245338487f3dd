import { z } from 'zod';

/**
 * DEV-2: a change one device asked for about another, waiting for that other device to confirm
 * it. `byDeviceId` is null for the runtime's own token.
 */
export const DeviceRequestSchema = z.object({
  requestId: z.string(),
  action: z.enum(['rename', 'revoke']),
  deviceId: z.string(),
  byDeviceId: z.string().nullable(),
  /** The new name, for a rename. */
  name: z.string().nullable(),
  createdAt: z.number().int(),
  expiresAt: z.number().int(),
});
export type DeviceRequest = z.infer<typeof DeviceRequestSchema>;

/** DEV-2: what every device is told, so the Devices screen and any open session can show it. */
export const DeviceChangeSchema = z.discriminatedUnion('change', [
  /** A pairing code was used: a new device (DEV-1); the code's expiry tells the screen showing it that it is spent. */
  z.object({ change: z.literal('paired'), deviceId: z.string(), name: z.string(), codeExpiresAt: z.number() }),
  z.object({ change: z.literal('renamed'), deviceId: z.string(), byDeviceId: z.string().nullable(), name: z.string() }),
  z.object({ change: z.literal('revoked'), deviceId: z.string(), byDeviceId: z.string().nullable() }),
  z.object({ change: z.literal('requested'), request: DeviceRequestSchema }),
  z.object({ change: z.literal('declined'), request: DeviceRequestSchema }),
  z.object({
    change: z.literal('guardRailsLifted'),
    byDeviceId: z.string().nullable(),
    sessionId: z.string(),
    /** What was switched on, in words: "Claude bypassPermissions", "Codex sandbox danger-full-access"… */
    settings: z.array(z.string()),
  }),
]);
export type DeviceChange = z.infer<typeof DeviceChangeSchema>;
