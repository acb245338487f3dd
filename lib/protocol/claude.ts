import { z } from 'zod';
import { UsageReadingSchema } from './agents';

/** What Claude's accountInfo says about an account's sign-in (ACC-2). */
export const ClaudeAccountStatusSchema = z.object({
  state: z.enum(['signedIn', 'signedOut', 'unavailable']),
  email: z.string().nullable(),
  organization: z.string().nullable(),
  subscriptionType: z.string().nullable(),
  /** How Claude signs in: its token source (`claude.ai`…) or the API key's source (`ANTHROPIC_API_KEY`…). */
  source: z.string().nullable(),
  /** Why the state is `unavailable`, for people. */
  reason: z.string().nullable(),
});
export type ClaudeAccountStatus = z.infer<typeof ClaudeAccountStatusSchema>;

/** One Claude account: the main Claude folder (`default`) or one added under the data folder (ACC-2). */
export const ClaudeAccountSchema = z.object({
  id: z.string(),
  label: z.string(),
  /** The folder Claude Code runs with for this account. */
  folder: z.string(),
  active: z.boolean(),
  /** An API key was entered in the app for it (the key itself never leaves the desktop). */
  hasApiKey: z.boolean(),
  /** The command to run once on the desktop to sign in with a Claude subscription. */
  signInCommand: z.string(),
  /** The newest plan-limit reading of each window (ACC-7). */
  usage: z.array(UsageReadingSchema),
  /** What the last check since the runtime started said, and when; null before the first (ACC-2). */
  lastStatus: z.object({ status: ClaudeAccountStatusSchema, checkedAt: z.number() }).nullable(),
});
export type ClaudeAccount = z.infer<typeof ClaudeAccountSchema>;

/** A conversation Claude saved for a project folder (ACC-8). */
export const SavedClaudeSessionSchema = z.object({
  claudeSessionId: z.string(),
  summary: z.string(),
  lastModified: z.number(),
  gitBranch: z.string().nullable(),
  /** Addition: the first thing the person asked, and the size of the saved conversation, when Claude says. */
  firstPrompt: z.string().nullable().optional(),
  sizeBytes: z.number().int().nullable().optional(),
  /** The app session that already has it open; such a conversation cannot be continued again. */
  openInSessionId: z.string().nullable(),
});
export type SavedClaudeSession = z.infer<typeof SavedClaudeSessionSchema>;
