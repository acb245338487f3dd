import { afterEach, describe, expect, it } from 'vitest';
import { childEnvironment } from '../../../../server/runtime/process/childEnvironment';
import { ProcessGroup, type ProcessGroupIdentity } from '../../../../server/runtime/process/processGroup';
import { readProcStat } from '../../../../server/runtime/process/procStat';
import {
  killLeftovers,
  liveMembersOfGroup,
  stubbornGroupCommand,
  stubbornGroupStarted,
} from '../../../fixtures/processTree';
import { makeTempDir } from '../../../fixtures/tempDir';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) killLeftovers(dir);
});

function recordingTracker() {
  const recorded: ProcessGroupIdentity[] = [];
  const forgotten: ProcessGroupIdentity[] = [];
  return {
    recorded,
    forgotten,
    tracker: {
      record: (g: ProcessGroupIdentity) => recorded.push(g),
      forget: (g: ProcessGroupIdentity) => forgotten.push(g),
    },
  };
}

function startStubborn(
  base: number,
  tracker?: ReturnType<typeof recordingTracker>['tracker'],
): { group: ProcessGroup; dir: string } {
  const dir = makeTempDir('hbcode-group-');
  dirs.push(dir);
  const group = ProcessGroup.spawn('/bin/sh', ['-c', stubbornGroupCommand(base)], {
    cwd: dir,
    env: childEnvironment(),
    stdio: 'ignore',
    tracker,
  });
  return { group, dir };
}

describe('SES-5 a process group stopped with grace', () => {
  it('SES-5 stop sends SIGKILL to the group when the grace ends although the leader exited at SIGTERM; it resolves once none of the group is alive', async () => {
    const { tracker, recorded, forgotten } = recordingTracker();
    const { group, dir } = startStubborn(1070, tracker);
    const pgid = await stubbornGroupStarted(dir, 1070);
    expect(pgid).toBe(group.child.pid);

    await group.stop(300);
    expect(group.leaderExited).toBe(true);
    expect(group.child.signalCode).toBe('SIGTERM');
    expect(liveMembersOfGroup(pgid)).toEqual([]);
    // The identity names the leader by its start time, and is forgotten once the group is gone.
    expect(recorded).toEqual([
      { pgid, startTicks: expect.any(Number) as number, bootId: expect.stringMatching(/^[0-9a-f-]{36}$/) as string },
    ]);
    expect(forgotten).toEqual(recorded);
  });

  it('SES-5 stop of a group that ends at SIGTERM needs no SIGKILL; stopping twice is one stop', async () => {
    const dir = makeTempDir('hbcode-group-');
    dirs.push(dir);
    const group = ProcessGroup.spawn('/bin/sh', ['-c', 'sleep 1081 & sleep 1080'], {
      cwd: dir,
      env: childEnvironment(),
      stdio: 'ignore',
    });
    const stat = await new Promise<ReturnType<typeof readProcStat>>((resolve) =>
      setTimeout(() => resolve(readProcStat(group.child.pid!)), 0),
    );
    expect(stat?.pgrp).toBe(group.child.pid);
    const first = group.stop(60_000);
    expect(group.stop(1)).toBe(first);
    await first;
    expect(liveMembersOfGroup(group.child.pid!)).toEqual([]);
  });

  it('SES-5 release forgets the group without signalling it (a command that ended by itself)', async () => {
    const { tracker, recorded, forgotten } = recordingTracker();
    const { group, dir } = startStubborn(1090, tracker);
    const pgid = await stubbornGroupStarted(dir, 1090);
    group.release();
    expect(forgotten).toEqual(recorded);
    expect(liveMembersOfGroup(pgid).length).toBeGreaterThanOrEqual(2);
    await group.stop(100);
    expect(liveMembersOfGroup(pgid)).toEqual([]);
  });

  it('SEC-4 a child never sees the runtime token', async () => {
    const dir = makeTempDir('hbcode-group-');
    const env = childEnvironment({ EXTRA: 'kept' }, { HBCODE_TOKEN: 'secret-token', PATH: process.env.PATH });
    expect(env).toEqual({ EXTRA: 'kept', PATH: process.env.PATH });
    const group = ProcessGroup.spawn('/bin/sh', ['-c', 'echo "${HBCODE_TOKEN-unset} $EXTRA"'], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    group.child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise((resolve) => group.child.once('close', resolve));
    expect(out).toBe('unset kept\n');
  });
});
