import { HeadTailAggregate } from '../output/aggregate';
import { childEnvironment } from '../process/childEnvironment';
import type { ProcessGroupLedger } from '../process/processGroupLedger';
import { PtySession } from '../process/ptySession';
import { childStarts } from '../process/startQueue';
import { conflict } from '../errors';
import { DEFAULT_STOP_GRACES } from '../process/stopGraces';
import type { Agent, AgentRunContext, CommandResult } from './agent';
/** The size a shell starts at before any device said its own. */
const DEFAULT_SIZE = { cols: 80, rows: 24 };
/** Each terminal's one command: the shell's lifetime is a run with this command (TERM-3). */
export const TERMINAL_COMMAND_ID = 'terminal';

export interface TerminalSize {
  cols: number;
  rows: number;
}

/** Live bytes of a running shell, with where they start in its output (TERM-4). */
export interface TerminalBytes {
  sessionId: string;
  runId: string;
  commandId: string;
  offset: number;
  bytes: Buffer;
}

interface LiveTerminal {
  runId: string;
  pty: PtySession;
}

function loginShell(): { file: string; args: string[] } {
  return { file: process.env.SHELL || '/bin/bash', args: ['-l'] };
}

/**
 * Terminal sessions (TERM-1): each run of a terminal session is one interactive login shell in a
 * PTY in the project folder, its screen's bytes the output of the run's one command, stored like
 * any command's (OUT-1…OUT-5) and published live to every device (TERM-4). The run ends when the
 * shell exits or is stopped (delete, shutdown: TERM-5).
 */
export class TerminalAgent implements Agent {
  readonly kind = 'terminal' as const;
  private readonly live = new Map<string, LiveTerminal>();
  private readonly sizes = new Map<string, TerminalSize>();
  private readonly starting = new Map<string, { promise: Promise<void>; resolve: () => void }>();

  constructor(
    private readonly processes: Pick<ProcessGroupLedger, 'trackerFor'> | undefined,
    private readonly publish: (bytes: TerminalBytes) => void,
    /** After SIGHUP, a terminal's processes get this long before SIGKILL (TERM-5). */
    private readonly hangupGraceMs = DEFAULT_STOP_GRACES.terminalHangupMs,
  ) {}

  available(): boolean {
    return process.platform !== 'win32';
  }

  unavailableReason(): string {
    return 'Terminal sessions need a Unix pseudo-terminal.';
  }

  isRunning(sessionId: string): boolean {
    return this.live.has(sessionId);
  }

  /** The size the next shell of the session starts at. */
  setStartSize(sessionId: string, size: TerminalSize): void {
    this.sizes.set(sessionId, size);
  }

  /** Resolves once the session's next shell runs, or its run ended without one. */
  whenStarted(sessionId: string): Promise<void> {
    if (this.live.has(sessionId)) return Promise.resolve();
    let entry = this.starting.get(sessionId);
    if (!entry) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      entry = { promise, resolve };
      this.starting.set(sessionId, entry);
    }
    return entry.promise;
  }

  private started(sessionId: string): void {
    this.starting.get(sessionId)?.resolve();
    this.starting.delete(sessionId);
  }

  private running(sessionId: string): LiveTerminal {
    const terminal = this.live.get(sessionId);
    if (!terminal)
      throw conflict('The shell of this terminal is not running; open the terminal again to start one.', { sessionId });
    return terminal;
  }

  input(sessionId: string, data: string): void {
    this.running(sessionId).pty.pty.write(data);
  }

  resize(sessionId: string, size: TerminalSize): void {
    this.sizes.set(sessionId, size);
    this.running(sessionId).pty.pty.resize(size.cols, size.rows);
  }

  /** The pid of the session's running shell, for diagnostics and tests. */
  shellPid(sessionId: string): number | null {
    return this.live.get(sessionId)?.pty.pid ?? null;
  }

  async run(context: AgentRunContext): Promise<void> {
    const { sessionId, runId } = context;
    const { file, args } = loginShell();
    const handle = context.startCommand(TERMINAL_COMMAND_ID, [file, ...args].join(' '));
    const size = this.sizes.get(sessionId) ?? DEFAULT_SIZE;
    let pty: PtySession;
    try {
      pty = await childStarts.run(
        () =>
          PtySession.spawn(file, args, {
            cwd: context.cwd,
            env: childEnvironment({ TERM: 'xterm-256color', COLORTERM: 'truecolor' }),
            cols: size.cols,
            rows: size.rows,
            tracker: this.processes?.trackerFor({ purpose: 'terminal', runId, commandId: TERMINAL_COMMAND_ID }),
          }),
        context.signal,
      );
    } catch (error) {
      this.started(sessionId);
      const result: CommandResult = context.signal.aborted
        ? { status: 'cancelled', exitCode: null, aggregate: Buffer.alloc(0) }
        : {
            status: 'failed',
            exitCode: null,
            error: `The shell could not be started: ${(error as Error).message}`,
            aggregate: Buffer.alloc(0),
          };
      await handle.complete(result);
      return;
    }
    this.live.set(sessionId, { runId, pty });
    this.started(sessionId);
    const result = await this.follow(context, pty, handle);
    this.live.delete(sessionId);
    await handle.complete(result);
  }

  private follow(
    context: AgentRunContext,
    session: PtySession,
    handle: ReturnType<AgentRunContext['startCommand']>,
  ): Promise<CommandResult> {
    const { sessionId, runId } = context;
    const aggregate = new HeadTailAggregate();
    let offset = 0;
    let paused = false;
    let stopped: Promise<void> | null = null;
    return new Promise((resolve) => {
      const onAbort = () => {
        stopped = session.stop(this.hangupGraceMs);
      };
      if (context.signal.aborted) queueMicrotask(onAbort);
      else context.signal.addEventListener('abort', onAbort, { once: true });
      session.pty.onData((data) => {
        const bytes = data as unknown as Buffer;
        aggregate.push(bytes);
        this.publish({ sessionId, runId, commandId: TERMINAL_COMMAND_ID, offset, bytes });
        offset += bytes.length;
        // The disk sets the pace: a shell printing faster than its bytes are stored waits (OUT-2).
        if (!handle.output(bytes) && !paused) {
          paused = true;
          session.pty.pause();
          void handle.whenDrained().then(() => {
            paused = false;
            session.pty.resume();
          });
        }
      });
      session.pty.onExit(({ exitCode, signal }) => {
        context.signal.removeEventListener('abort', onAbort);
        const settle = () =>
          resolve({
            status: stopped ? 'cancelled' : 'exited',
            exitCode: signal ? 128 + signal : exitCode,
            aggregate: aggregate.toBuffer(),
          });
        if (stopped) void stopped.then(settle);
        else {
          // Exited by itself (`exit`): what it left in the background is the user's, as in a terminal.
          session.release();
          settle();
        }
      });
    });
  }
}
