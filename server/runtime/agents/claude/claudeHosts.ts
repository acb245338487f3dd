import crypto from 'node:crypto';
import type { Logger } from '../../log';
import type { ProcessGroupLedger } from '../../process/processGroupLedger';
import { ClaudeHostProcess, exitWords, type HostExit } from './hostProcess';

/** A host with no request under way this long is stopped (SES-8); the next request starts another. */
export const DEFAULT_HOST_IDLE_MS = 5 * 60_000;

export interface ClaudeHostsOptions {
  idleMs?: number;
  /** After SIGTERM a host and what it started get this long before SIGKILL; the default grace when absent. */
  killGraceMs?: number;
  processes?: Pick<ProcessGroupLedger, 'trackerFor'>;
  log: Logger;
}

interface Entry {
  host: ClaudeHostProcess;
  idleTimer?: NodeJS.Timeout;
}

/** A fingerprint of a host's variables: hosts whose variables match are the same account's. */
function envKey(env: NodeJS.ProcessEnv): string {
  const sorted = Object.entries(env)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => a.localeCompare(b));
  return crypto.createHash('sha256').update(JSON.stringify(sorted)).digest('hex');
}

/**
 * The long-lived Claude agent hosts, one per account (SES-8), as Codex has an app-server per
 * profile: a host starts on the first request with its account's variables, stays while used,
 * stops after `idleMs` without a request, and when it crashes or is killed its requests fail
 * naming its exit and the next request starts a new one.
 */
export class ClaudeHosts {
  private readonly hosts = new Map<string, Entry>();
  private readonly idleMs: number;
  private closed = false;
  /** The last unexpected exit of each account's host, in words (SES-8). */
  readonly failures = new Map<string, string>();

  constructor(private readonly options: ClaudeHostsOptions) {
    this.idleMs = options.idleMs ?? DEFAULT_HOST_IDLE_MS;
  }

  /** The running host for these variables, started when there is none. */
  hostFor(account: string, env: NodeJS.ProcessEnv): ClaudeHostProcess {
    const key = envKey(env);
    const existing = this.hosts.get(key);
    if (existing && !existing.host.exit) return existing.host;
    const entry: Entry = { host: null as unknown as ClaudeHostProcess };
    entry.host = new ClaudeHostProcess(
      env,
      (tag) => this.options.processes?.trackerFor({ purpose: 'claude host', envTag: tag }),
      (busy) => this.busyChanged(key, entry, busy),
      this.options.killGraceMs,
    );
    this.hosts.set(key, entry);
    this.options.log.info('claude host started', { account, pid: entry.host.pid ?? null });
    void entry.host.exited.then((exit) => this.gone(key, entry, account, exit));
    // Until its first request it is idle too.
    this.busyChanged(key, entry, 0);
    return entry.host;
  }

  private busyChanged(key: string, entry: Entry, busy: number): void {
    clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
    if (busy > 0 || this.closed) return;
    entry.idleTimer = setTimeout(() => {
      if (entry.host.busy > 0 || this.hosts.get(key) !== entry) return;
      this.hosts.delete(key);
      void entry.host.stop();
    }, this.idleMs);
    entry.idleTimer.unref();
  }

  private gone(key: string, entry: Entry, account: string, exit: HostExit): void {
    clearTimeout(entry.idleTimer);
    if (this.hosts.get(key) === entry) this.hosts.delete(key);
    if (exit.stopped) return;
    const words = `The Claude agent host ${exitWords(exit)}.`;
    this.failures.set(account, words);
    this.options.log.warn('claude host exited unexpectedly; the next request starts a new one', {
      account,
      code: exit.code,
      signal: exit.signal,
    });
  }

  /** Hosts running now, for tests and diagnostics. */
  running(): ClaudeHostProcess[] {
    return [...this.hosts.values()].map((entry) => entry.host).filter((host) => !host.exit);
  }

  /** Runtime shutdown: every host stops, and what each started with it (SES-9). */
  async close(): Promise<void> {
    this.closed = true;
    const entries = [...this.hosts.values()];
    this.hosts.clear();
    for (const entry of entries) clearTimeout(entry.idleTimer);
    await Promise.all(entries.map((entry) => entry.host.stop()));
  }
}
