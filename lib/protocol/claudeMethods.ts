import { z } from 'zod';
import { AgentModelSchema } from './agents';
import { ClaudeAccountSchema, ClaudeAccountStatusSchema, SavedClaudeSessionSchema } from './claude';

const AccountId = z.union([z.literal('default'), z.uuid()]);
const Empty = z.object({}).strict();

/** Claude accounts, models and saved conversations (ACC-2, ACC-5, ACC-8). */
export const claudeMethods = {
  'claude.accounts.list': {
    params: Empty.optional(),
    result: z.object({ accounts: z.array(ClaudeAccountSchema), activeAccountId: z.string() }),
  },
  'claude.accounts.add': {
    params: z.object({ label: z.string().trim().min(1).max(100).optional() }).strict(),
    result: z.object({ account: ClaudeAccountSchema }),
  },
  'claude.accounts.remove': {
    params: z.object({ accountId: z.uuid() }).strict(),
    result: Empty,
  },
  'claude.accounts.activate': {
    params: z.object({ accountId: AccountId }).strict(),
    result: Empty,
  },
  /** Stores (or with null, forgets) the API key runs of this account use. */
  'claude.accounts.setApiKey': {
    params: z.object({ accountId: AccountId, apiKey: z.string().trim().min(1).max(500).nullable() }).strict(),
    result: Empty,
  },
  /** Asks Claude Code (accountInfo) whether the account is signed in; starts an agent host. */
  'claude.accounts.status': {
    params: z.object({ accountId: AccountId }).strict(),
    result: z.object({ status: ClaudeAccountStatusSchema }),
  },
  'claude.models.list': {
    params: z.object({ accountId: AccountId.optional() }).strict(),
    result: z.object({ models: z.array(AgentModelSchema) }),
  },
  'claude.sessions.list': {
    params: z
      .object({ projectId: z.string().min(1).max(200), limit: z.number().int().min(1).max(200).optional() })
      .strict(),
    result: z.object({ sessions: z.array(SavedClaudeSessionSchema) }),
  },
} as const;
