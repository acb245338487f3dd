import { z } from 'zod';

/** One app-owned Codex profile and what its app-server last reported about its account (ACC-1). */
export const CodexProfileSchema = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(['signed_out', 'authenticated', 'unavailable']),
  /** `apiKey` or `chatgpt` (as Codex names it); null when signed out. */
  authMode: z.string().nullable(),
  email: z.string().nullable(),
  planType: z.string().nullable(),
  /** Why the status is `unavailable`: Codex could not start or answer. */
  statusReason: z.string().nullable(),
  createdAt: z.number().int(),
  checkedAt: z.number().int().nullable(),
});
export type CodexProfile = z.infer<typeof CodexProfileSchema>;

/** How to sign a profile in (ACC-1): a device code works from a phone, `browser` only on the desktop. */
export const CodexLoginMethodSchema = z.enum(['deviceCode', 'browser', 'apiKey']);

/** What the app shows while a sign-in waits for the user. */
export const CodexLoginSchema = z.object({
  loginId: z.string().nullable(),
  method: CodexLoginMethodSchema,
  /** Device code: open this URL (on any device) and enter `userCode`. */
  verificationUrl: z.string().nullable(),
  userCode: z.string().nullable(),
  /** Browser: open this URL in a browser on the desktop. */
  authUrl: z.string().nullable(),
});
export type CodexLogin = z.infer<typeof CodexLoginSchema>;

/** A saved Codex conversation of a profile (ACC-8, `thread/list`). */
export const CodexThreadSchema = z.object({
  id: z.string(),
  preview: z.string(),
  cwd: z.string().nullable(),
  createdAt: z.number().int().nullable(),
  updatedAt: z.number().int().nullable(),
  /** Addition: Codex's own name for it, the branch it was on, and the size of its saved rollout. */
  name: z.string().nullable().optional(),
  gitBranch: z.string().nullable().optional(),
  sizeBytes: z.number().int().nullable().optional(),
});
export type CodexThread = z.infer<typeof CodexThreadSchema>;

/** A Codex conversation file (SRC-1), described from its first lines. */
export const CodexRolloutSchema = z.object({
  path: z.string(),
  /** The runtime profile whose home holds it; null: the person's own Codex home (read only, SRC-4). */
  profileId: z.string().nullable(),
  threadId: z.string().nullable(),
  /** A fork's parent thread (its rollout must be in the same home, SRC-5). */
  forkedFromThreadId: z.string().nullable(),
  cwd: z.string().nullable(),
  firstPrompt: z.string().nullable(),
  startedAt: z.number().nullable(),
  updatedAt: z.number(),
  size: z.number().int(),
  /** The branch its session_meta names, when it does. */
  gitBranch: z.string().nullable(),
});
export type CodexRollout = z.infer<typeof CodexRolloutSchema>;
