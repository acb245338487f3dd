import { z } from 'zod';
import { PlanEntrySchema } from '../../../../lib/protocol/rows';
import type { Db } from '../../store/database';
import type { TurnUsage } from './codexTurnRows';
import { parseJsonWith } from '../../../../lib/shared/parseJsonWith';

const SavedPlanSchema = z.object({
  explanation: z.string().nullable(),
  entries: z.array(PlanEntrySchema),
  createdAt: z.number().int(),
  /** The turn's item the plan was first shown after, live (TL-3); absent in records from before. */
  after: z.string().nullable().optional(),
});
export type SavedPlan = z.infer<typeof SavedPlanSchema>;

export interface TurnRecord {
  usage: TurnUsage | null;
  plan: SavedPlan | null;
}

interface RecordRow {
  input_tokens: number | null;
  output_tokens: number | null;
  cached_input_tokens: number | null;
  reasoning_tokens: number | null;
  plan_json: string | null;
}

function planOf(json: string | null): SavedPlan | null {
  return json === null ? null : parseJsonWith(SavedPlanSchema, json);
}

/** codex_turn_records: each turn's usage and last plan, for its saved rows (TL-1). */
export class CodexTurnRecords {
  private readonly upsertUsage;
  private readonly upsertPlan;
  private readonly select;

  constructor(db: Db) {
    this.upsertUsage = db.prepare(
      `INSERT INTO codex_turn_records (app_session_id, codex_turn_id, input_tokens, output_tokens, cached_input_tokens, reasoning_tokens)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (app_session_id, codex_turn_id) DO UPDATE SET input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
         cached_input_tokens = excluded.cached_input_tokens, reasoning_tokens = excluded.reasoning_tokens`,
    );
    this.upsertPlan = db.prepare(
      `INSERT INTO codex_turn_records (app_session_id, codex_turn_id, plan_json) VALUES (?, ?, ?)
       ON CONFLICT (app_session_id, codex_turn_id) DO UPDATE SET plan_json = excluded.plan_json`,
    );
    this.select = db.prepare<[string, string], RecordRow>(
      'SELECT input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, plan_json FROM codex_turn_records WHERE app_session_id = ? AND codex_turn_id = ?',
    );
  }

  saveUsage(sessionId: string, turnId: string, usage: TurnUsage): void {
    this.upsertUsage.run(
      sessionId,
      turnId,
      usage.inputTokens,
      usage.outputTokens,
      usage.cachedInputTokens,
      usage.reasoningTokens,
    );
  }

  savePlan(sessionId: string, turnId: string, plan: SavedPlan): void {
    this.upsertPlan.run(sessionId, turnId, JSON.stringify(plan));
  }

  read(sessionId: string, turnId: string): TurnRecord {
    const row = this.select.get(sessionId, turnId);
    if (!row) return { usage: null, plan: null };
    const usage =
      row.input_tokens === null || row.output_tokens === null
        ? null
        : {
            inputTokens: row.input_tokens,
            outputTokens: row.output_tokens,
            cachedInputTokens: row.cached_input_tokens,
            reasoningTokens: row.reasoning_tokens,
          };
    return { usage, plan: planOf(row.plan_json) };
  }
}
