import type { Db } from '../../store/database';
import type { TurnUsage } from './codexTurnRows';

/** codex_turn_usage: the token usage of each turn the app ran, for saved turn-end rows (TL-1). */
export class CodexTurnUsageStore {
  private readonly upsert;
  private readonly select;

  constructor(db: Db) {
    this.upsert = db.prepare(
      `INSERT INTO codex_turn_usage (app_session_id, codex_turn_id, input_tokens, output_tokens, cached_input_tokens, reasoning_tokens)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (app_session_id, codex_turn_id) DO UPDATE SET input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
         cached_input_tokens = excluded.cached_input_tokens, reasoning_tokens = excluded.reasoning_tokens`,
    );
    this.select = db.prepare<[string, string], { input_tokens: number; output_tokens: number; cached_input_tokens: number | null; reasoning_tokens: number | null }>(
      'SELECT input_tokens, output_tokens, cached_input_tokens, reasoning_tokens FROM codex_turn_usage WHERE app_session_id = ? AND codex_turn_id = ?',
    );
  }

  save(sessionId: string, turnId: string, usage: TurnUsage): void {
    this.upsert.run(sessionId, turnId, usage.inputTokens, usage.outputTokens, usage.cachedInputTokens, usage.reasoningTokens);
  }

  read(sessionId: string, turnId: string): TurnUsage | null {
    const row = this.select.get(sessionId, turnId);
    return row ? { inputTokens: row.input_tokens, outputTokens: row.output_tokens, cachedInputTokens: row.cached_input_tokens, reasoningTokens: row.reasoning_tokens } : null;
  }
}
