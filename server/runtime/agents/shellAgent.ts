import { constants as osConstants } from 'node:os';
import { HeadTailAggregate } from '../output/aggregate';
import { childEnvironment } from '../process/childEnvironment';
import { ProcessGroup } from '../process/processGroup';
import type { ProcessGroupLedger } from '../process/processGroupLedger';
import { childStarts } from '../process/startQueue';
import type { Agent, AgentRunContext, CommandResult } from './agent';
import { commandWithPaths } from '../attachments/agentInput';
import { DEFAULT_STOP_GRACES, type StopGraces } from '../process/stopGraces';

function shellCommand(text: string): { file: string; args: string[] } {
  if (process.platform === 'win32') return { file: process.env.ComSpec ?? 'cmd.exe', args: ['/d', '/s', '/c', text] };
  return { file: process.env.SHELL || '/bin/sh', args: ['-c', text] };
}

function signalExitCode(signal: NodeJS.Signals | null): number | null {
  if (!signal) return null;
  const number = osConstants.signals[signal];
  return number === undefined ? null : 128 + number;
}

/**
 * The embedded default agent (SES-2): each message is one command line, run by the user's shell
 * in the project folder, in its own process group so cancelling it stops its children too.
 * stdout and stderr stream as deltas in arrival order; a 1 MiB head/tail aggregate is kept like
 * Codex's so the completion rules of OUT-4 run for every command.
 */
export class ShellAgent implements Agent {
  readonly kind = 'shell' as const;

  /** Built once: copying process.env costs more than a short command's whole bookkeeping. */
  private readonly env = childEnvironment();

  constructor(
    private readonly processes?: Pick<ProcessGroupLedger, 'trackerFor'>,
    private readonly graces: Pick<StopGraces, 'commandKillMs' | 'pipeDrainMs'> = DEFAULT_STOP_GRACES,
  ) {}

  available(): boolean {
    return true;
  }

  async run(context: AgentRunContext): Promise<void> {
    const commandId = '1';
    const command = commandWithPaths(context.text, context.attachments);
    const handle = context.startCommand(commandId, command);
    const { file, args } = shellCommand(command);
    let group: ProcessGroup;
    try {
      // The row exists already; the fork waits for its turn (PERF-8).
      group = await childStarts.run(
        () =>
          ProcessGroup.spawn(file, args, {
            cwd: context.cwd,
            env: this.env,
            stdio: ['ignore', 'pipe', 'pipe'],
            tracker: this.processes?.trackerFor({ purpose: 'command', runId: context.runId, commandId }),
          }),
        context.signal,
      );
    } catch (error) {
      const result: CommandResult = context.signal.aborted
        ? { status: 'cancelled', exitCode: null, aggregate: Buffer.alloc(0) }
        : {
            status: 'failed',
            exitCode: null,
            error: `The command could not be started: ${(error as Error).message}`,
            aggregate: Buffer.alloc(0),
          };
      await handle.complete(result);
      return;
    }
    const result = await this.execute(context, group, handle.output.bind(handle), () => handle.whenDrained());
    await handle.complete(result);
  }

  private execute(
    context: AgentRunContext,
    group: ProcessGroup,
    output: (delta: Buffer) => boolean,
    whenDrained: () => Promise<void>,
  ): Promise<CommandResult> {
    return new Promise((resolve) => {
      const aggregate = new HeadTailAggregate();
      let cancelled = context.signal.aborted;
      let settled = false;
      let drainTimer: NodeJS.Timeout | undefined;
      // Set once the group is being stopped: the command ends only when all of its group is gone.
      let stopped: Promise<void> | null = null;
      const child = group.child;
      const streams = [child.stdout!, child.stderr!];

      // SES-5: SIGTERM to the whole group, SIGKILL to the whole group when the grace ends even if
      // the shell exited at once (a background job may ignore SIGTERM).
      const onAbort = () => {
        cancelled = true;
        stopped = group.stop(this.graces.commandKillMs);
      };
      if (cancelled) queueMicrotask(onAbort);
      else context.signal.addEventListener('abort', onAbort, { once: true });

      let exitResult: Omit<CommandResult, 'aggregate'> | null = null;
      let paused = false;
      // After the shell exits, keep reading until the pipes close, but stop once they stay idle
      // (a background child holding them open). Time spent paused for the disk does not count.
      const armDrainTimer = () => {
        clearTimeout(drainTimer);
        if (!exitResult || paused) return;
        const result = exitResult;
        drainTimer = setTimeout(() => finish(result), this.graces.pipeDrainMs);
        drainTimer.unref();
      };

      const onData = (chunk: Buffer) => {
        aggregate.push(chunk);
        if (!output(chunk) && !paused) {
          paused = true;
          for (const s of streams) s.pause();
          clearTimeout(drainTimer);
          void whenDrained().then(() => {
            paused = false;
            for (const s of streams) s.resume();
            armDrainTimer();
          });
        } else {
          armDrainTimer();
        }
      };
      for (const s of streams) s.on('data', onData);

      const finish = (result: Omit<CommandResult, 'aggregate'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(drainTimer);
        context.signal.removeEventListener('abort', onAbort);
        for (const s of streams) {
          s.off('data', onData);
          s.destroy();
        }
        const settle = () => resolve({ ...result, aggregate: aggregate.toBuffer() });
        if (stopped) void stopped.then(settle);
        else {
          // Ended by itself: what it left in the background is the user's, as in a terminal.
          group.release();
          settle();
        }
      };

      child.once('error', (error) => {
        finish({ status: 'failed', exitCode: null, error: `The command could not be started: ${error.message}` });
      });
      child.once('exit', (code, signal) => {
        const result: Omit<CommandResult, 'aggregate'> = cancelled
          ? { status: 'cancelled', exitCode: code ?? signalExitCode(signal) }
          : { status: 'exited', exitCode: code ?? signalExitCode(signal) };
        exitResult = result;
        child.once('close', () => finish(result));
        armDrainTimer();
      });
    });
  }
}
