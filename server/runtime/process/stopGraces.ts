import { parseIntegerFlag } from '../../../lib/shared/integerFlag';

/**
 * How long each kind of stop lets processes end by themselves before it forces them (SES-5,
 * TERM-5, ACC-6). The defaults are the product's; each has an HBCODE_*_GRACE_MS variable so a test
 * that proves "forced when the grace ends" waits tens of milliseconds, not seconds (habit 13).
 */
export interface StopGraces {
  /** After SIGTERM, a command's process group gets this long before SIGKILL (SES-5). */
  commandKillMs: number;
  /** After a shell command exits, its pipes are read until they stay idle this long (a background child may hold them). */
  pipeDrainMs: number;
  /** After SIGHUP, a terminal's shell and jobs get this long before SIGKILL (TERM-5). */
  terminalHangupMs: number;
  /** Codex's app server gets this long to exit before SIGKILL. */
  codexStopMs: number;
  /** After an interrupt a Claude turn gets this long to end before its query is cancelled (ACC-6: within 5 s). */
  claudeInterruptMs: number;
  /** What a stopped Claude turn or host leaves gets this long after SIGTERM before SIGKILL (SES-9). */
  claudeKillMs: number;
}

export const DEFAULT_STOP_GRACES: StopGraces = {
  commandKillMs: 2_000,
  pipeDrainMs: 1_000,
  terminalHangupMs: 2_000,
  codexStopMs: 3_000,
  claudeInterruptMs: 1_500,
  claudeKillMs: 3_000,
};

const GRACE_VARIABLES: Record<keyof StopGraces, string> = {
  commandKillMs: 'HBCODE_COMMAND_KILL_GRACE_MS',
  pipeDrainMs: 'HBCODE_PIPE_DRAIN_GRACE_MS',
  terminalHangupMs: 'HBCODE_TERMINAL_HANGUP_GRACE_MS',
  codexStopMs: 'HBCODE_CODEX_STOP_GRACE_MS',
  claudeInterruptMs: 'HBCODE_CLAUDE_INTERRUPT_GRACE_MS',
  claudeKillMs: 'HBCODE_CLAUDE_KILL_GRACE_MS',
};

/** The graces with each HBCODE_*_GRACE_MS that is set (a whole number of milliseconds, at least 1) in place of its default. */
export function stopGracesFromEnv(env: NodeJS.ProcessEnv): StopGraces {
  const graces = { ...DEFAULT_STOP_GRACES };
  for (const [key, name] of Object.entries(GRACE_VARIABLES) as [keyof StopGraces, string][]) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    graces[key] = parseIntegerFlag(raw, name, { min: 1, unit: 'milliseconds' });
  }
  return graces;
}
