import { describe, expect, it } from 'vitest';
import { DEFAULT_STOP_GRACES, stopGracesFromEnv } from '../../../../server/runtime/process/stopGraces';

describe('SES-5 TERM-5 ACC-6 the stop graces from the environment', () => {
  it('SES-5 the defaults without variables; each HBCODE_*_GRACE_MS replaces its own grace only', () => {
    expect(stopGracesFromEnv({})).toEqual(DEFAULT_STOP_GRACES);
    expect(DEFAULT_STOP_GRACES).toEqual({
      commandKillMs: 2000,
      pipeDrainMs: 1000,
      terminalHangupMs: 2000,
      codexStopMs: 3000,
      claudeInterruptMs: 1500,
      claudeKillMs: 3000,
    });
    expect(
      stopGracesFromEnv({
        HBCODE_COMMAND_KILL_GRACE_MS: '250',
        HBCODE_TERMINAL_HANGUP_GRACE_MS: '',
        HBCODE_CLAUDE_INTERRUPT_GRACE_MS: '40',
      }),
    ).toEqual({
      ...DEFAULT_STOP_GRACES,
      commandKillMs: 250,
      claudeInterruptMs: 40,
    });
  });

  it('SES-5 a grace that is not a whole number of milliseconds of at least 1 is refused, naming the variable', () => {
    for (const raw of ['0', '-5', '1.5', 'soon']) {
      expect(() => stopGracesFromEnv({ HBCODE_PIPE_DRAIN_GRACE_MS: raw })).toThrow(
        `HBCODE_PIPE_DRAIN_GRACE_MS must be a whole number of milliseconds, at least 1, not "${raw}".`,
      );
    }
  });
});
