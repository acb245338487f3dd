import { spawn as spawnPty, type IPty } from 'node-pty';
import { KILLED_WAIT_MS, recentProcessGroups, sendToGroup, waitUntilGone } from './groupSignals';
import { trackGroup, type ProcessGroupIdentity, type ProcessGroupTracker } from './processGroup';
import { currentBootId, hasProcFs, liveMembersOfSession, readProcStat } from './procStat';

export interface SpawnPtyOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  cols: number;
  rows: number;
  tracker?: ProcessGroupTracker;
}

/**
 * Signals every process group of a terminal's session (TERM-5): the shell's own and each job's,
 * since an interactive shell puts every job (a `top`, a pipeline) in a group of its own. The
 * members are those of session `sid` started no earlier than its leader, so a number reused by
 * someone else's process is never signalled.
 */
export function signalSession(sid: number, leaderStartTicks: number, signal: NodeJS.Signals, notBefore = 0): void {
  const groups = new Set(
    liveMembersOfSession(recentProcessGroups(notBefore), sid, leaderStartTicks).map((member) => member.pgrp),
  );
  for (const pgrp of groups) sendToGroup(pgrp, signal);
}

export function sessionIsAlive(sid: number, leaderStartTicks: number, notBefore = 0): boolean {
  return liveMembersOfSession(recentProcessGroups(notBefore), sid, leaderStartTicks).length > 0;
}

/**
 * A login shell in a pseudo-terminal (TERM-1). The PTY's child starts a new session whose
 * number is the shell's pid; that session is recorded like a command's process group (SES-5),
 * so a runtime that dies leaves a row start-up can stop, and `stop` ends every job of it.
 */
export class PtySession {
  readonly identity: ProcessGroupIdentity | null;
  private exited = false;
  private exitedAt = 0;
  private stopping: Promise<void> | null = null;
  /** Stops tracking without stopping: the shell exited by itself (what it left is the user's). */
  readonly release: () => void;

  private constructor(
    readonly pty: IPty,
    tracker: ProcessGroupTracker | undefined,
  ) {
    const stat = readProcStat(pty.pid);
    const bootId = currentBootId();
    this.identity = stat && bootId ? { pgid: pty.pid, startTicks: stat.startTicks, bootId } : null;
    this.release = trackGroup(this.identity, tracker);
    pty.onExit(() => {
      this.exited = true;
      this.exitedAt = performance.now();
    });
  }

  static spawn(file: string, args: readonly string[], options: SpawnPtyOptions): PtySession {
    const pty = spawnPty(file, [...args], {
      name: 'xterm-256color',
      cols: options.cols,
      rows: options.rows,
      cwd: options.cwd,
      env: options.env as Record<string, string>,
      // Raw bytes: the screen is stored as it came, never re-encoded (OUT-8).
      encoding: null,
    });
    return new PtySession(pty, options.tracker);
  }

  get pid(): number {
    return this.pty.pid;
  }

  /** Whether any process of the terminal's session still runs (not merely a zombie). */
  isAlive(): boolean {
    if (!hasProcFs || !this.identity) return !this.exited;
    return sessionIsAlive(this.identity.pgid, this.identity.startTicks, this.exitedAt);
  }

  /**
   * Hangs the terminal up as closing its window would: SIGHUP to every group of the session, then
   * SIGKILL to whatever is left when the grace ends. Idempotent; resolves once nothing runs.
   */
  stop(graceMs: number): Promise<void> {
    this.stopping ??= this.stopWithGrace(graceMs);
    return this.stopping;
  }

  private async stopWithGrace(graceMs: number): Promise<void> {
    const identity = this.identity;
    if (identity) signalSession(identity.pgid, identity.startTicks, 'SIGHUP');
    else if (!this.exited) this.pty.kill('SIGHUP');
    if (!(await waitUntilGone(() => this.isAlive(), graceMs))) {
      if (identity) signalSession(identity.pgid, identity.startTicks, 'SIGKILL', performance.now());
      else if (!this.exited) this.pty.kill('SIGKILL');
      await waitUntilGone(() => this.isAlive(), KILLED_WAIT_MS);
    }
    this.release();
  }
}
