import type { Db } from '../store/database';
import type { ProcessGroupIdentity, ProcessGroupTracker } from './processGroup';

/** Who a group runs for: one command of a run, or an agent host. */
export interface ProcessGroupOwner {
  purpose: 'command' | 'codex app-server' | 'claude host' | 'terminal';
  runId?: string;
  commandId?: string;
  /** SES-9: the value of the tag variable every process of the host carries. */
  envTag?: string;
}

export interface RecordedProcessGroup extends ProcessGroupIdentity {
  runId: string | null;
  commandId: string | null;
  purpose: string;
  envTag: string | null;
}

/**
 * The `process_groups` table: a row from the moment a group is started until it is known to be
 * gone, so a runtime that dies by SIGKILL leaves behind a list of what may still run (SES-5).
 */
export class ProcessGroupLedger {
  private readonly insert;
  private readonly remove;
  private readonly all;

  constructor(private readonly db: Db) {
    this.insert = db.prepare(
      'INSERT OR REPLACE INTO process_groups (pgid, leader_start_ticks, boot_id, run_id, command_id, purpose, started_at, env_tag) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.remove = db.prepare('DELETE FROM process_groups WHERE boot_id = ? AND pgid = ? AND leader_start_ticks = ?');
    this.all = db.prepare(
      'SELECT pgid, leader_start_ticks, boot_id, run_id, command_id, purpose, env_tag FROM process_groups',
    );
  }

  trackerFor(owner: ProcessGroupOwner): ProcessGroupTracker {
    return {
      record: (group) => {
        this.insert.run(
          group.pgid,
          group.startTicks,
          group.bootId,
          owner.runId ?? null,
          owner.commandId ?? null,
          owner.purpose,
          Date.now(),
          owner.envTag ?? null,
        );
      },
      forget: (group) => this.forget(group),
    };
  }

  forget(group: ProcessGroupIdentity): void {
    this.remove.run(group.bootId, group.pgid, group.startTicks);
  }

  recorded(): RecordedProcessGroup[] {
    type Row = {
      pgid: number;
      leader_start_ticks: number;
      boot_id: string;
      run_id: string | null;
      command_id: string | null;
      purpose: string;
      env_tag: string | null;
    };
    return (this.all.all() as Row[]).map((row) => ({
      pgid: row.pgid,
      startTicks: row.leader_start_ticks,
      bootId: row.boot_id,
      runId: row.run_id,
      commandId: row.command_id,
      purpose: row.purpose,
      envTag: row.env_tag,
    }));
  }
}
