import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../../server/runtime/log';
import { MIGRATIONS_DIR } from '../../../../server/runtime/paths';
import { childEnvironment } from '../../../../server/runtime/process/childEnvironment';
import { ProcessGroup } from '../../../../server/runtime/process/processGroup';
import { ProcessGroupLedger } from '../../../../server/runtime/process/processGroupLedger';
import { stopSurvivingGroups } from '../../../../server/runtime/process/stopSurvivingGroups';
import { openDatabase, type Db } from '../../../../server/runtime/store/database';
import {
  killLeftovers,
  liveMembersOfGroup,
  pollUntil,
  stubbornGroupCommand,
  stubbornGroupStarted,
} from '../../../fixtures/processTree';
import { makeTempDir } from '../../../fixtures/tempDir';

const dirs: string[] = [];
const dbs: Db[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) killLeftovers(dir);
  for (const db of dbs.splice(0)) db.close();
});

function openLedger(): ProcessGroupLedger {
  const db = openDatabase(path.join(makeTempDir('hbcode-ledger-'), 'hbcode.db'), MIGRATIONS_DIR);
  dbs.push(db);
  return new ProcessGroupLedger(db);
}

/** A stubborn group that no runtime owns any more, as a SIGKILLed runtime leaves it. */
async function orphanGroup(
  base: number,
  ledger: ProcessGroupLedger,
  runId: string,
): Promise<{ group: ProcessGroup; pgid: number }> {
  const dir = makeTempDir('hbcode-orphan-');
  dirs.push(dir);
  const group = ProcessGroup.spawn('/bin/sh', ['-c', stubbornGroupCommand(base)], {
    cwd: dir,
    env: childEnvironment(),
    stdio: 'ignore',
    tracker: ledger.trackerFor({ purpose: 'command', runId, commandId: '1' }),
  });
  return { group, pgid: await stubbornGroupStarted(dir, base) };
}

describe('SES-5 start-up stops the groups a dead runtime left', () => {
  it('SES-5 a recorded group whose leader still has its start time is stopped as a whole, and the ledger is emptied', async () => {
    const ledger = openLedger();
    const { pgid } = await orphanGroup(1100, ledger, 'run-a');
    expect(ledger.recorded()).toMatchObject([{ pgid, runId: 'run-a', commandId: '1', purpose: 'command' }]);

    const report = await stopSurvivingGroups(ledger, 300, silentLogger);
    expect(report.stopped).toMatchObject([{ pgid, runId: 'run-a' }]);
    expect(liveMembersOfGroup(pgid)).toEqual([]);
    expect(ledger.recorded()).toEqual([]);
  });

  it('SES-5 a group that lost its leader is still found by its members and stopped', async () => {
    const ledger = openLedger();
    const { group, pgid } = await orphanGroup(1110, ledger, 'run-b');
    // The leader and the foreground sleep end; the background sleep (ignoring TERM) lives on.
    group.signal('SIGTERM');
    await new Promise((resolve) => group.child.once('exit', resolve));
    await pollUntil(() => liveMembersOfGroup(pgid).length === 1, 'only the background sleep is left');

    const report = await stopSurvivingGroups(ledger, 300, silentLogger);
    expect(report.stopped).toMatchObject([{ pgid }]);
    expect(liveMembersOfGroup(pgid)).toEqual([]);
  });

  it('SES-5 a recorded leader whose start time differs (a reused pid) or of another boot is never signalled', async () => {
    const ledger = openLedger();
    const { group, pgid } = await orphanGroup(1120, ledger, 'run-c');
    const identity = group.identity!;
    ledger.forget(identity);
    ledger
      .trackerFor({ purpose: 'command', runId: 'reused', commandId: '1' })
      .record({ ...identity, startTicks: identity.startTicks + 1 });
    ledger
      .trackerFor({ purpose: 'command', runId: 'old-boot', commandId: '1' })
      .record({ ...identity, bootId: '00000000-0000-0000-0000-000000000000' });

    const report = await stopSurvivingGroups(ledger, 300, silentLogger);
    expect(report.stopped).toEqual([]);
    expect(liveMembersOfGroup(pgid).length).toBeGreaterThanOrEqual(2);
    expect(ledger.recorded()).toEqual([]);
    await group.stop(100);
  });
});
