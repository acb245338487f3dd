import { z } from 'zod';
import { ApprovalSchema, UsageReadingSchema } from './agents';
import { CodexProfileSchema } from './accounts';
import { DeviceChangeSchema } from './devices';
import { TimelineRowSchema } from './rows';
import { TerminalOutputSchema } from './terminal';

/** Server → client notifications (SES-4). */
export const notifications = {
  'timeline.row': z.object({
    sessionId: z.string(),
    row: TimelineRowSchema,
    revision: z.number().int().nonnegative().optional(),
  }),
  /** Live rows the agent's saved history did not keep, gone after reconciliation (TL-3). */
  'timeline.removed': z.object({
    sessionId: z.string(),
    ids: z.array(z.string()),
    revision: z.number().int().nonnegative(),
  }),
  'sessions.changed': z.object({ sessionId: z.string(), deleted: z.boolean() }),
  /** A file under a preview's root changed on disk (PRV-6): the app reloads that preview. */
  'preview.changed': z.object({ previewId: z.string(), path: z.string() }),
  /** An approval was asked for or answered (from any device). */
  'approval.changed': z.object({ sessionId: z.string(), approval: ApprovalSchema }),
  /** A Codex profile's status or account changed, or a sign-in ended (`login` with its outcome), ACC-1. */
  'codex.profile.changed': z.object({
    profile: CodexProfileSchema,
    removed: z.boolean(),
    login: z.object({ loginId: z.string().nullable(), success: z.boolean(), error: z.string().nullable() }).optional(),
  }),
  /** A new plan-limit reading was stored (ACC-7). */
  'usage.changed': z.object({ reading: UsageReadingSchema }),
  /** A terminal session's live bytes (TERM-4). */
  'terminal.output': TerminalOutputSchema,
  /** DEV-2: a device was renamed or revoked, a change waits for a device's confirmation or was declined, guard rails were lifted. */
  'devices.changed': DeviceChangeSchema,
} as const;

export type NotificationName = keyof typeof notifications;
export type NotificationParams<N extends NotificationName> = z.output<(typeof notifications)[N]>;

/** One notification as data, its params matching its method: what the runtime emits and a socket forwards. */
export type RpcNotification = {
  [N in NotificationName]: { method: N; params: NotificationParams<N> };
}[NotificationName];

export function isNotificationName(name: string): name is NotificationName {
  return Object.hasOwn(notifications, name);
}
