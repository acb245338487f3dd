import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { unavailable } from '../../errors';
import { HostEventSchema, type HostEvent, type HostRequest } from './hostProtocol';

const HOST_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'claudeHost.ts');
/** After SIGTERM the host gets this long to stop Claude Code before SIGKILL. */
const KILL_GRACE_MS = 3000;

/**
 * Starts one agent host for one request and hands each valid event line to `onEvent`; resolves
 * when the host exits. The host runs with the runtime's environment (model endpoint, Claude
 * folder) less the runtime's own token.
 */
export function runAgentHost(request: HostRequest, onEvent: (event: HostEvent) => void, signal?: AbortSignal): Promise<{ code: number | null; stderr: string }> {
  const env = { ...process.env };
  delete env.HBCODE_TOKEN;
  const child = spawn(process.execPath, ['--import', 'tsx', HOST_SCRIPT], { env, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    if (stderr.length < 4096) stderr += d.toString('utf8');
  });
  readline.createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', (line) => {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      return;
    }
    const parsed = HostEventSchema.safeParse(json);
    if (parsed.success) onEvent(parsed.data);
  });
  child.stdin.on('error', () => undefined);
  child.stdin.end(JSON.stringify(request) + '\n');
  let killTimer: NodeJS.Timeout | undefined;
  const onAbort = () => {
    child.kill('SIGTERM');
    killTimer = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
    killTimer.unref();
  };
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  return new Promise((resolve, reject) => {
    child.once('error', (error) => reject(unavailable(`The Claude agent host could not be started: ${error.message}`)));
    child.once('close', (code) => {
      clearTimeout(killTimer);
      signal?.removeEventListener('abort', onAbort);
      resolve({ code, stderr });
    });
  });
}
