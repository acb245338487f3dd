import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { KILLED_WAIT_MS, recentProcessGroups, sendToGroup, waitUntilGone } from './groupSignals';
import { currentBootId, hasProcFs, liveMembersOf, readProcStat } from './procStat';

/** A process group as the kernel names it until reboot: its number, its leader's start time, the boot. */
export interface ProcessGroupIdentity {
  pgid: number;
  startTicks: number;
  bootId: string;
}

/** Where a started group is written down, so a runtime that dies cannot lose track of it. */
export interface ProcessGroupTracker {
  record(identity: ProcessGroupIdentity): void;
  forget(identity: ProcessGroupIdentity): void;
}

/**
 * Writes the group down now and answers the idempotent "forget it": the row stays until the
 * group is known gone or left to the user (SES-5, TERM-5).
 */
export function trackGroup(
  identity: ProcessGroupIdentity | null,
  tracker: ProcessGroupTracker | undefined,
): () => void {
  if (!identity || !tracker) return () => undefined;
  tracker.record(identity);
  let tracked = true;
  return () => {
    if (!tracked) return;
    tracked = false;
    tracker.forget(identity);
  };
}

export interface SpawnGroupOptions {
  cwd?: string;
  env: NodeJS.ProcessEnv;
  stdio: StdioOptions;
  tracker?: ProcessGroupTracker;
}

/**
 * One child started as the leader of its own process group (detached: a new session), with the
 * group's identity recorded by the tracker while it may still run (SES-5). `stop` ends the whole
 * group: SIGTERM, then SIGKILL when the grace ends whether or not the leader has exited, since a
 * group outlives its leader (a background job that ignores SIGTERM, say).
 */
export class ProcessGroup {
  readonly identity: ProcessGroupIdentity | null;
  private stopping: Promise<void> | null = null;
  private readonly forget: () => void;
  private leaderExitedAt = 0;

  private constructor(
    readonly child: ChildProcess,
    tracker: ProcessGroupTracker | undefined,
  ) {
    const pid = child.pid;
    // Read at once: until Node reaps the leader (on the event loop, later) its /proc entry stays.
    const stat = pid === undefined ? null : readProcStat(pid);
    const bootId = currentBootId();
    this.identity = pid !== undefined && stat && bootId ? { pgid: pid, startTicks: stat.startTicks, bootId } : null;
    this.forget = trackGroup(this.identity, tracker);
    child.once('exit', () => (this.leaderExitedAt = performance.now()));
  }

  static spawn(file: string, args: readonly string[], options: SpawnGroupOptions): ProcessGroup {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: options.stdio,
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    return new ProcessGroup(child, options.tracker);
  }

  /** True once Node has reaped the leader; from then on its pid may be reused. */
  get leaderExited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null || this.child.pid === undefined;
  }

  /** Whether any process of the group is still alive (not merely a zombie). */
  isAlive(): boolean {
    const pgid = this.child.pid;
    if (pgid === undefined) return false;
    if (!this.leaderExited) return true;
    if (process.platform === 'win32') return false;
    if (!sendToGroup(pgid, 0)) return false;
    if (!hasProcFs || !this.identity) return true;
    return liveMembersOf(recentProcessGroups(this.leaderExitedAt), pgid, this.identity.startTicks).length > 0;
  }

  /** Signals every process of the group, never a group that merely reuses its number. */
  signal(signal: NodeJS.Signals): void {
    const pgid = this.child.pid;
    if (pgid === undefined) return;
    if (process.platform === 'win32') {
      this.child.kill(signal);
      return;
    }
    // While the leader is unreaped its number cannot be reused; after that, only a group that
    // still has members started after the leader is ours.
    if (this.leaderExited && !this.isAlive()) return;
    sendToGroup(pgid, signal);
  }

  /**
   * SIGTERM, then SIGKILL to the whole group after `graceMs`; resolves once nothing of the group
   * is alive. Idempotent. `terminate: 'leader'` sends the SIGTERM to the leader alone, for a
   * leader that stops its own children gracefully (the Claude host aborting its SDK query).
   */
  stop(graceMs: number, options: { terminate?: 'group' | 'leader' } = {}): Promise<void> {
    this.stopping ??= this.stopWithGrace(graceMs, options.terminate ?? 'group');
    return this.stopping;
  }

  private async stopWithGrace(graceMs: number, terminate: 'group' | 'leader'): Promise<void> {
    if (terminate === 'group') this.signal('SIGTERM');
    else if (!this.leaderExited) this.child.kill('SIGTERM');
    if (!(await waitUntilGone(() => this.isAlive(), graceMs))) {
      this.signal('SIGKILL');
      await waitUntilGone(() => this.isAlive(), KILLED_WAIT_MS);
    }
    this.release();
  }

  /**
   * Stops tracking the group without stopping it: its command ended normally (background jobs
   * it left are the user's, as in a terminal), or the group is gone.
   */
  release(): void {
    this.forget();
  }
}
