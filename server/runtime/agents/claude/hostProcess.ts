import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { unavailable } from '../../errors';
import { childEnvironment } from '../../process/childEnvironment';
import { ProcessGroup, type ProcessGroupTracker } from '../../process/processGroup';
import { HostEventSchema, type HostEvent, type HostRequest } from './hostProtocol';

const HOST_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'claudeHost.ts');
/** After SIGTERM the host gets this long to stop Claude Code before its group gets SIGKILL. */
const KILL_GRACE_MS = 3000;

/**
 * Starts one agent host for one request, in its own process group, and hands each valid event
 * line to `onEvent`; resolves when the host exits and nothing of its group is left (SES-5). The
 * host runs with the runtime's environment (model endpoint, Claude folder) less the runtime's
 * own secrets.
 */
export function runAgentHost(
  request: HostRequest,
  onEvent: (event: HostEvent) => void,
  signal?: AbortSignal,
  tracker?: ProcessGroupTracker,
): Promise<{ code: number | null; stderr: string }> {
  const group = ProcessGroup.spawn(process.execPath, ['--import', 'tsx', HOST_SCRIPT], { env: childEnvironment(), stdio: ['pipe', 'pipe', 'pipe'], tracker });
  const child = group.child;
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    if (stderr.length < 4096) stderr += d.toString('utf8');
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
  child.stdin!.end(JSON.stringify(request) + '\n');
  // The host aborts its SDK query on SIGTERM, which stops Claude Code its own way; the group gets
  // SIGKILL only if something of it is still alive when the grace ends.
  const onAbort = () => void group.stop(KILL_GRACE_MS, { terminate: 'leader' });
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  return new Promise((resolve, reject) => {
    child.once('error', (error) => reject(unavailable(`The Claude agent host could not be started: ${error.message}`)));
    child.once('close', (code) => {
      signal?.removeEventListener('abort', onAbort);
      // Whatever the host left in its group (Claude Code, a tool's child) ends with it.
      void group.stop(KILL_GRACE_MS, { terminate: 'leader' }).then(() => resolve({ code, stderr }));
    });
  });
}
