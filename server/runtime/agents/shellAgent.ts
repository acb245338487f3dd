import { spawn } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { HeadTailAggregate } from '../output/aggregate';
import type { Agent, AgentRunContext, CommandResult } from './agent';

/** After SIGTERM, a command's process group gets this long before SIGKILL. */
const KILL_GRACE_MS = 2000;
/** After the shell exits, background children may hold its pipes; stop reading after this. */
const PIPE_DRAIN_GRACE_MS = 1000;
/** Variables the runtime holds for itself and never hands to a command (SEC-4). */
const PRIVATE_ENV = ['HBCODE_TOKEN'];

function shellCommand(text: string): { file: string; args: string[] } {
  if (process.platform === 'win32') return { file: process.env.ComSpec ?? 'cmd.exe', args: ['/d', '/s', '/c', text] };
  return { file: process.env.SHELL || '/bin/sh', args: ['-c', text] };
}

function commandEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of PRIVATE_ENV) delete env[name];
  return env;
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

  available(): boolean {
    return true;
  }

  async run(context: AgentRunContext): Promise<void> {
    const handle = context.startCommand('1', context.text);
    const result = await this.execute(context, handle.output.bind(handle), () => handle.whenDrained());
    await handle.complete(result);
  }

  private execute(
    context: AgentRunContext,
    output: (delta: Buffer) => boolean,
    whenDrained: () => Promise<void>,
  ): Promise<CommandResult> {
    return new Promise((resolve) => {
      const aggregate = new HeadTailAggregate();
      const { file, args } = shellCommand(context.text);
      let cancelled = context.signal.aborted;
      let settled = false;
      let killTimer: NodeJS.Timeout | undefined;
      let drainTimer: NodeJS.Timeout | undefined;

      const child = spawn(file, args, {
        cwd: context.cwd,
        env: commandEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
        windowsHide: true,
      });
      const streams = [child.stdout, child.stderr];

      const killGroup = (signal: NodeJS.Signals) => {
        if (child.pid === undefined) return;
        try {
          if (process.platform === 'win32') child.kill(signal);
          else process.kill(-child.pid, signal);
        } catch {
          // Already gone.
        }
      };

      const onAbort = () => {
        cancelled = true;
        killGroup('SIGTERM');
        killTimer = setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
        killTimer.unref();
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
        drainTimer = setTimeout(() => finish(result), PIPE_DRAIN_GRACE_MS);
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
        clearTimeout(killTimer);
        clearTimeout(drainTimer);
        context.signal.removeEventListener('abort', onAbort);
        for (const s of streams) {
          s.off('data', onData);
          s.destroy();
        }
        resolve({ ...result, aggregate: aggregate.toBuffer() });
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
