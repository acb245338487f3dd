import { describe, expect, it } from 'vitest';
import { parseProcStat, readProcStat } from '../../../../server/runtime/process/procStat';

describe('SES-5 /proc/<pid>/stat', () => {
  it('SES-5 reads state, group and start time after the last parenthesis, whatever the command name holds', () => {
    const fields = (comm: string) =>
      `4242 (${comm}) S 1 4240 4240 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1234567 89 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0`;
    for (const comm of ['sleep', 'a b', 'x) S 9 9 9 (y', '((']) {
      expect(parseProcStat(4242, fields(comm))).toEqual({
        pid: 4242,
        state: 'S',
        pgrp: 4240,
        session: 4240,
        startTicks: 987654,
      });
    }
    expect(parseProcStat(1, 'garbage')).toBeNull();
  });

  it('SES-5 the running process reads back as itself', () => {
    const own = readProcStat(process.pid);
    expect(own).toMatchObject({ pid: process.pid, state: expect.stringMatching(/^[RS]$/) as string });
    expect(own!.startTicks).toBeGreaterThan(0);
  });
});
