import crypto from 'node:crypto';
import readline from 'node:readline';
import { unavailable } from '../../errors';
import { childEnvironment } from '../../process/childEnvironment';
import { childProgram } from '../../process/childProgram';
import { ProcessGroup, type ProcessGroupTracker } from '../../process/processGroup';
import { DEFAULT_STOP_GRACES } from '../../process/stopGraces';
import { stopTagged } from '../../process/taggedProcesses';
import {
  HostOutboundSchema,
  PROCESS_TAG_VARIABLE,
  type HostControl,
  type HostEvent,
  type HostInbound,
  type HostRequest,
} from './hostProtocol';

/** How the host is started: the one place that names its entry file and command (the bundle's, or the source's under tsx). */
export function hostCommand(): { file: string; args: string[] } {
  return childProgram('claudeHost');
}

export interface HostExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** True when the runtime stopped the host (idle, shutdown); false for a crash or a kill from outside. */
  stopped: boolean;
}

/** The host's exit in words (SES-8): "was killed by SIGKILL", "exited with code 1". */
export function exitWords(exit: Pick<HostExit, 'code' | 'signal'>): string {
  if (exit.signal) return `was killed by ${exit.signal}`;
  return `exited with code ${exit.code ?? 'none'}`;
}

export interface HostCallOptions {
  signal?: AbortSignal;
  /** Past this the request is cancelled and fails (reads); absent: no limit (runs). */
  timeoutMs?: number;
}

/** One request to a host: its control lines (ACC-4, ACC-6), its cancellation, its end. */
export interface HostCall {
  send(control: HostControl): void;
  cancel(): void;
  /** Settles once the host ended the request; `exit` is set when the host stopped first. */
  ended: Promise<{ exit: HostExit | null }>;
}

interface OpenCall {
  onEvent(event: HostEvent): void;
  settle(exit: HostExit | null): void;
}

/**
 * One long-lived Claude agent host (SES-8): a child in its own process group that answers
 * requests by id, several at a time. Every process it starts carries its tag (SES-9), so when
 * it ends, however it ends, what it started ends too: its group, then every tagged process.
 */
export class ClaudeHostProcess {
  readonly tag = crypto.randomUUID();
  readonly exited: Promise<HostExit>;
  /** Set the moment the child is gone; the cleanup after it may still run. */
  exit: HostExit | null = null;
  private readonly group: ProcessGroup;
  private readonly calls = new Map<string, OpenCall>();
  private stderr = '';
  private stopRequested = false;
  private readonly onBusyChange: (busy: number) => void;

  /**
   * `killGraceMs`: after SIGTERM the host gets this long to stop Claude Code before its group
   * gets SIGKILL, and so does what it started.
   */
  constructor(
    env: NodeJS.ProcessEnv,
    tracker: (tag: string) => ProcessGroupTracker | undefined,
    onBusyChange: (busy: number) => void = () => undefined,
    private readonly killGraceMs = DEFAULT_STOP_GRACES.claudeKillMs,
  ) {
    this.onBusyChange = onBusyChange;
    const { file, args } = hostCommand();
    this.group = ProcessGroup.spawn(file, args, {
      env: childEnvironment({ ...env, [PROCESS_TAG_VARIABLE]: this.tag }),
      stdio: ['pipe', 'pipe', 'pipe'],
      tracker: tracker(this.tag),
    });
    const child = this.group.child;
    child.stderr!.on('data', (d: Buffer) => {
      // The end of stderr is what explains an exit (ACC-3): keep the last 4 KiB.
      this.stderr = (this.stderr + d.toString('utf8')).slice(-4096);
    });
    readline.createInterface({ input: child.stdout!, crlfDelay: Infinity }).on('line', (line) => this.onLine(line));
    child.stdin!.on('error', () => undefined);
    this.exited = new Promise<HostExit>((resolve) => {
      const finish = (code: number | null, signal: NodeJS.Signals | null) => {
        const exit: HostExit = { code, signal, stderr: this.stderr, stopped: this.stopRequested };
        this.exit = exit;
        // SES-9: whatever the host started, in its group or in a session of its own, ends with it,
        // before any request is told the host is gone.
        void stopTagged(PROCESS_TAG_VARIABLE, this.tag, this.killGraceMs)
          .then(() => this.group.stop(this.killGraceMs, { terminate: 'leader' }))
          .catch(() => undefined)
          .then(() => {
            for (const call of [...this.calls.values()]) call.settle(exit);
            resolve(exit);
          });
      };
      child.once('error', (error) => {
        this.stderr += `\nThe Claude agent host could not be started: ${error.message}`;
        if (child.pid === undefined) finish(null, null);
      });
      child.once('close', finish);
    });
  }

  get pid(): number | undefined {
    return this.group.child.pid;
  }

  /** Requests under way. */
  get busy(): number {
    return this.calls.size;
  }

  private onLine(line: string): void {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      return;
    }
    const parsed = HostOutboundSchema.safeParse(json);
    if (!parsed.success) return;
    const call = this.calls.get(parsed.data.id);
    if (parsed.data.kind === 'event') call?.onEvent(parsed.data.event);
    else call?.settle(null);
  }

  private write(line: HostInbound): void {
    const stdin = this.group.child.stdin!;
    if (stdin.writable) stdin.write(JSON.stringify(line) + '\n');
  }

  /** Sends `request`; each of its events goes to `onEvent` until its end, the host's exit, a timeout or the signal. */
  request(request: HostRequest, onEvent: (event: HostEvent) => void, options: HostCallOptions = {}): HostCall {
    const id = crypto.randomUUID();
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    let resolveEnded!: (value: { exit: HostExit | null }) => void;
    let rejectEnded!: (error: Error) => void;
    const ended = new Promise<{ exit: HostExit | null }>((resolve, reject) => {
      resolveEnded = resolve;
      rejectEnded = reject;
    });
    const finish = (outcome: { exit: HostExit | null } | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      this.calls.delete(id);
      this.onBusyChange(this.calls.size);
      if (outcome instanceof Error) rejectEnded(outcome);
      else resolveEnded(outcome);
    };
    const cancel = () => this.write({ kind: 'cancel', id });
    const onAbort = () => {
      cancel();
      finish(unavailable('The request was cancelled.'));
    };
    if (this.exit) {
      finish({ exit: this.exit });
      return { send: () => undefined, cancel: () => undefined, ended };
    }
    this.calls.set(id, { onEvent: (event) => !settled && onEvent(event), settle: (exit) => finish({ exit }) });
    this.onBusyChange(this.calls.size);
    if (options.timeoutMs !== undefined) {
      timer = setTimeout(() => {
        cancel();
        finish(unavailable(`The Claude agent host did not answer within ${Math.round(options.timeoutMs! / 1000)} s.`));
      }, options.timeoutMs);
    }
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    this.write({ kind: 'request', id, request });
    return { send: (control) => this.write({ kind: 'control', id, control }), cancel, ended };
  }

  /**
   * Stops the host: its stdin ends, so it stops every request and exits; SIGTERM, then SIGKILL to
   * its group after the grace. Resolves once it and what it started are gone.
   */
  stop(): Promise<HostExit> {
    this.stopRequested = true;
    this.group.child.stdin!.end();
    void this.group.stop(this.killGraceMs, { terminate: 'leader' });
    return this.exited;
  }
}

/** The stderr tail and exit of a host as one line, for a failure that names it (SES-8). */
export function hostGoneMessage(exit: HostExit): string {
  const tail = exit.stderr.trim().split('\n').slice(-5).join('\n').slice(-1000);
  return `The Claude agent host ${exitWords(exit)}${tail ? `: ${tail}` : '.'}`;
}

const ANSWERS = new Set<HostEvent['type']>([
  'history',
  'output',
  'missing',
  'done',
  'described',
  'commands',
  'sessions',
  'sessionTitle',
]);

/** One read to `host`: its first answer, or a failed `done` naming the host's exit when it died under it. */
export async function askHostOnce(
  host: ClaudeHostProcess,
  request: HostRequest,
  timeoutMs: number,
): Promise<HostEvent | null> {
  let answer: HostEvent | null = null;
  const { exit } = await host.request(
    request,
    (event) => {
      if (ANSWERS.has(event.type)) answer ??= event;
    },
    { timeoutMs },
  ).ended;
  return answer ?? (exit ? { type: 'done', ok: false, error: hostGoneMessage(exit) } : null);
}
