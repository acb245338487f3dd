import { z } from 'zod';
import { AgentKindSchema } from './rows';

/** One agent adapter and whether it can run on the runtime's computer (SES-2). */
export const AgentInfoSchema = z.object({
  agent: AgentKindSchema,
  available: z.boolean(),
  /** Why it is not available, for people. */
  reason: z.string().optional(),
});
export type AgentInfo = z.infer<typeof AgentInfoSchema>;

export const ApprovalDecisionSchema = z.enum(['accept', 'decline']);
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

/** A command the agent asks permission to run; any device of the user may answer it. */
export const ApprovalSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  runId: z.string(),
  command: z.string(),
  reason: z.string().nullable(),
  createdAt: z.number().int(),
  /** null while waiting; the answer once given (by any device) or `cancel` when the run ended first. */
  decision: z.enum(['accept', 'decline', 'cancel']).nullable(),
});
export type Approval = z.infer<typeof ApprovalSchema>;
