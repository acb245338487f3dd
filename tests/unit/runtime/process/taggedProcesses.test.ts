import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  isUnderTag,
  processesTagged,
  PROCESS_TAG_VARIABLE,
  stopTagged,
} from '../../../../server/runtime/process/taggedProcesses';
import { readProcStat } from '../../../../server/runtime/process/procStat';
import { pollUntil } from '../../../fixtures/processTree';

/** Starts `script` in a session of its own with `tag`, as Claude Code starts a Bash command; returns nothing of it to wait on. */
function startDetached(script: string, tag: string): void {
  const child = spawn('setsid', ['sh', '-c', script], {
    env: { ...process.env, [PROCESS_TAG_VARIABLE]: tag },
    stdio: 'ignore',
    detached: true,
  });
  child.unref();
}

describe('SES-9 processes found by their tag', () => {
  it('a run tag is under its host tag, and no other tag is', () => {
    expect(isUnderTag('host', 'host')).toBe(true);
    expect(isUnderTag('host/run', 'host')).toBe(true);
    expect(isUnderTag('hostess', 'host')).toBe(false);
    expect(isUnderTag('host', 'host/run')).toBe(false);
  });

  it('stops every tagged process in sessions of their own, one that ignores SIGTERM too, and leaves others', async () => {
    const host = crypto.randomUUID();
    const other = crypto.randomUUID();
    startDetached("(trap '' TERM; exec sleep 301) & exec sleep 302", `${host}/${crypto.randomUUID()}`);
    startDetached('exec sleep 303', other);
    const found = await pollUntil(() => {
      const tagged = processesTagged(PROCESS_TAG_VARIABLE, host);
      return tagged.length === 2 && tagged;
    }, 'both sleeps of the host tag run');
    const bystander = await pollUntil(() => processesTagged(PROCESS_TAG_VARIABLE, other)[0], 'the other sleep runs');
    // Each is in a session of its own, apart from this process's.
    expect(found.every((p) => readProcStat(p.pid)!.pgrp !== process.pid)).toBe(true);
    expect(await stopTagged(PROCESS_TAG_VARIABLE, host, 300)).toBe(2);
    expect(processesTagged(PROCESS_TAG_VARIABLE, host)).toEqual([]);
    expect(processesTagged(PROCESS_TAG_VARIABLE, other)).toEqual([bystander]);
    expect(await stopTagged(PROCESS_TAG_VARIABLE, other, 300)).toBe(1);
  });
});
