import readline from 'node:readline';
import { unavailable } from '../../errors';
import { childEnvironment } from '../../process/childEnvironment';
import { childProgram } from '../../process/childProgram';
import { ProcessGroup, type ProcessGroupTracker } from '../../process/processGroup';
import { HostEventSchema, type HostControl, type HostEvent, type HostRequest } from './hostProtocol';

/** After SIGTERM the host gets this long to stop Claude Code before its group gets SIGKILL. */
const KILL_GRACE_MS = 3000;
/** After an interrupt the host gets this long to end its turn before the stop above (ACC-6: within 5 s). */
const INTERRUPT_GRACE_MS = 1500;

export interface HostExit {
  code: number | null;
  stderr: string;
}

/** A running host: further control lines go to its stdin (ACC-4, ACC-6); `exited` settles when its group is gone. */
export interface AgentHostHandle {
  send(control: HostControl): void;
  exited: Promise<HostExit>;
}

export interface AgentHostOptions {
  signal?: AbortSignal;
  tracker?: ProcessGroupTracker;
  /** Variables for this host only: the account's Claude folder, its API key (ACC-2). */
  env?: NodeJS.ProcessEnv;
  /** Keep stdin open after the request for control lines; otherwise it ends with the request. */
  control?: boolean;
  /** What a stop does first; the group is stopped when the host is still there after the grace. */
  onAbort?: (handle: AgentHostHandle) => void;
}

/**
 * Starts one agent host for one request, in its own process group, and hands each valid event
 * line to `onEvent` (SES-5). The host runs with the runtime's environment (model endpoint, Claude
 * folder) less the runtime's own secrets, plus `options.env`.
 */
export function startAgentHost(request: HostRequest, onEvent: (event: HostEvent) => void, options: AgentHostOptions = {}): AgentHostHandle {
  const { signal, tracker } = options;
  const host = childProgram('claudeHost');
  const group = ProcessGroup.spawn(host.file, host.args, { env: childEnvironment(options.env), stdio: ['pipe', 'pipe', 'pipe'], tracker });
  const child = group.child;
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    // The end of stderr is what explains an exit (ACC-3): keep the last 4 KiB.
    stderr = (stderr + d.toString('utf8')).slice(-4096);
  });
  readline.createInterface({ input: child.stdout!, crlfDelay: Infinity }).on('line', (line) => {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      return;
    }
    const parsed = HostEventSchema.safeParse(json);
    if (parsed.success) onEvent(parsed.data);
  });
  child.stdin!.on('error', () => undefined);
  if (options.control) child.stdin!.write(JSON.stringify(request) + '\n');
  else child.stdin!.end(JSON.stringify(request) + '\n');
  let graceTimer: NodeJS.Timeout | undefined;
  const exited = new Promise<HostExit>((resolve, reject) => {
    child.once('error', (error) => reject(unavailable(`The Claude agent host could not be started: ${error.message}`)));
    child.once('close', (code) => {
      signal?.removeEventListener('abort', onAbort);
      clearTimeout(graceTimer);
      // Whatever the host left in its group (Claude Code, a tool's child) ends with it.
      void group.stop(KILL_GRACE_MS, { terminate: 'leader' }).then(() => resolve({ code, stderr }));
    });
  });
  const handle: AgentHostHandle = {
    send(control) {
      if (child.stdin!.writable) child.stdin!.write(JSON.stringify(control) + '\n');
    },
    exited,
  };
  // The host stops Claude Code its own way (an interrupt, or SIGTERM aborting its query); the
  // group gets SIGKILL only if something of it is still alive when the grace ends.
  const onAbort = () => {
    if (options.onAbort) {
      options.onAbort(handle);
      graceTimer = setTimeout(() => void group.stop(KILL_GRACE_MS, { terminate: 'leader' }), INTERRUPT_GRACE_MS);
    } else void group.stop(KILL_GRACE_MS, { terminate: 'leader' });
  };
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  return handle;
}

/** One request, its events, and the host's exit (history reads, tool output, describe). */
export function runAgentHost(
  request: HostRequest,
  onEvent: (event: HostEvent) => void,
  signal?: AbortSignal,
  tracker?: ProcessGroupTracker,
  env?: NodeJS.ProcessEnv,
): Promise<HostExit> {
  return startAgentHost(request, onEvent, { signal, tracker, env }).exited;
}
