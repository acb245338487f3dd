/**
 * What the host reads off SDK messages besides the timeline (ACC-3, ACC-7): plan-limit readings
 * from rate_limit_event, and why a turn failed. Runs inside the agent host.
 */
import { z } from 'zod';
import type { HostEvent } from './hostProtocol';

const RateLimitEventSchema = z.object({
  type: z.literal('rate_limit_event'),
  rate_limit_info: z.object({
    status: z.string(),
    resetsAt: z.number().optional(),
    rateLimitType: z.string().optional(),
    utilization: z.number().optional(),
  }),
});

/** SDKAssistantMessageError values that mean the account has no working sign-in. */
const SIGNED_OUT_ERRORS = new Set(['authentication_failed', 'oauth_org_not_allowed']);
const AssistantErrorSchema = z.object({ type: z.literal('assistant'), error: z.string() });
const ResultErrorSchema = z.object({
  type: z.literal('result'),
  is_error: z.literal(true),
  result: z.string().optional(),
  subtype: z.string(),
});

/** A rate_limit_event as a host event; null for any other message. */
export function rateLimitReading(raw: unknown): Extract<HostEvent, { type: 'rateLimit' }> | null {
  const parsed = RateLimitEventSchema.safeParse(raw);
  if (!parsed.success) return null;
  const info = parsed.data.rate_limit_info;
  return {
    type: 'rateLimit',
    window: info.rateLimitType ?? 'unknown',
    utilization: info.utilization ?? null,
    resetsAt: info.resetsAt ?? null,
    status: info.status,
  };
}

/** The kind of failure an SDK message reports: `signed_out`, another error name, or null. */
export function failureCode(raw: unknown): string | null {
  const assistant = AssistantErrorSchema.safeParse(raw);
  if (assistant.success) return SIGNED_OUT_ERRORS.has(assistant.data.error) ? 'signed_out' : assistant.data.error;
  return null;
}

/** Claude's own words for a failed result ("Not logged in · Please run /login"), when it gave them. */
export function resultFailure(raw: unknown): { subtype: string; text: string | null } | null {
  const parsed = ResultErrorSchema.safeParse(raw);
  return parsed.success ? { subtype: parsed.data.subtype, text: parsed.data.result?.trim() || null } : null;
}

/** accountInfo of a first-party account with neither a token nor an API key: nobody signed in. */
export function isSignedOut(account: { tokenSource?: string; apiKeySource?: string; apiProvider?: string }): boolean {
  return (
    (account.apiProvider ?? 'firstParty') === 'firstParty' &&
    (account.tokenSource ?? 'none') === 'none' &&
    !account.apiKeySource
  );
}
