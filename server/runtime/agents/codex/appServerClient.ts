import type { ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { z } from 'zod';
import { withoutEscapes } from '../../../../lib/terminal/withoutEscapes';
import { unavailable } from '../../errors';
import type { Logger } from '../../log';
import { ProcessGroup, type ProcessGroupTracker } from '../../process/processGroup';
import { DEFAULT_STOP_GRACES } from '../../process/stopGraces';
import { IncomingSchema } from './codexProtocol';

type RequestId = number | string;

/** How much of Codex's stderr is kept, for the reason shown when it exits (ACC-3). */
const STDERR_TAIL_BYTES = 4096;
const STDERR_TAIL_LINES = 5;

/** The last lines of what Codex wrote to stderr, without terminal colours. */
export function stderrTail(bytes: Buffer): string {
  const text = withoutEscapes(bytes.toString('utf8'));
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .filter(Boolean)
    .slice(-STDERR_TAIL_LINES)
    .join('\n');
}

export interface AppServerHandlers {
  notification(method: string, params: unknown): void;
  /** A request from Codex; the promise's value is the answer (an approval decision). */
  request(method: string, params: unknown): Promise<unknown>;
  /** The child is gone; `exitCode` is null when it was stopped by a signal or never started. */
  exited(reason: string, exitCode: number | null): void;
}

/**
 * One `codex app-server` child speaking newline-delimited JSON-RPC over stdio (no `jsonrpc`
 * field). Every line is checked against the envelope schema; answers are checked by the caller's
 * schema. The child gets its profile home as CODEX_HOME and nothing of ours.
 */
export class AppServerClient {
  private readonly group: ProcessGroup;
  private readonly child: ChildProcess & { stdin: Writable; stdout: Readable; stderr: Readable };
  private nextId = 1;
  private readonly pending = new Map<
    RequestId,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  private closed: string | null = null;
  private stderr = Buffer.alloc(0);

  constructor(
    program: { file: string; args: string[] },
    env: NodeJS.ProcessEnv,
    private readonly handlers: AppServerHandlers,
    private readonly log: Logger,
    tracker?: ProcessGroupTracker,
    /** After SIGTERM Codex gets this long to stop its own children before its group gets SIGKILL. */
    private readonly stopGraceMs = DEFAULT_STOP_GRACES.codexStopMs,
  ) {
    // Its own process group (SES-5): stopping Codex stops whatever it left in that group too.
    this.group = ProcessGroup.spawn(program.file, [...program.args, 'app-server'], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      tracker,
    });
    this.child = this.group.child as typeof this.child;
    readline
      .createInterface({ input: this.child.stdout, crlfDelay: Infinity })
      .on('line', (line) => this.receive(line));
    // Codex logs to stderr; only its last few KiB are kept, for the exit reason (ACC-3).
    this.child.stderr.on('data', (chunk: Buffer) => {
      const joined = Buffer.concat([this.stderr, chunk]);
      this.stderr = joined.subarray(Math.max(0, joined.length - STDERR_TAIL_BYTES));
    });
    this.child.stdin.on('error', () => undefined);
    this.child.once('error', (error) => this.fail(`Codex could not be started: ${error.message}`, null));
    this.child.once('exit', (code, signal) => {
      // stderr may still hold its last lines: read them once the pipe closed.
      const report = () => {
        const tail = stderrTail(this.stderr);
        const how = signal ? `was stopped by ${signal}` : `exited with code ${code}`;
        this.fail(`Codex ${how}.${tail ? `\n${tail}` : ''}`, code);
      };
      if (this.child.stderr.readableEnded || this.child.stderr.destroyed) report();
      else this.child.stderr.once('close', report);
      void this.group.stop(this.stopGraceMs);
    });
  }

  private fail(reason: string, exitCode: number | null): void {
    if (this.closed) return;
    this.closed = reason;
    for (const { reject } of this.pending.values()) reject(unavailable(reason));
    this.pending.clear();
    this.handlers.exited(reason, exitCode);
  }

  private write(message: Record<string, unknown>): void {
    if (this.closed) throw unavailable(this.closed);
    this.child.stdin.write(JSON.stringify(message) + '\n');
  }

  private receive(line: string): void {
    if (!line.trim()) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.log.warn('codex sent a line that is not JSON', { bytes: line.length });
      return;
    }
    const parsed = IncomingSchema.safeParse(json);
    if (!parsed.success) {
      this.log.warn('codex sent an unexpected message', { bytes: line.length });
      return;
    }
    const message = parsed.data;
    if ('id' in message && 'method' in message && typeof message.method === 'string') {
      const id = message.id;
      this.handlers
        .request(message.method, message.params)
        .then(
          (result) => this.write({ id, result }),
          (error: unknown) =>
            this.write({
              id,
              error: { code: -32000, message: error instanceof Error ? error.message : String(error) },
            }),
        )
        .catch(() => undefined);
      return;
    }
    if ('id' in message) {
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      if ('error' in message && message.error)
        waiter.reject(unavailable(`Codex refused the request: ${message.error.message}`));
      else waiter.resolve('result' in message ? message.result : undefined);
      return;
    }
    this.handlers.notification(message.method, message.params);
  }

  async call<S extends z.ZodType>(method: string, params: unknown, schema: S): Promise<z.output<S>> {
    const id = this.nextId++;
    const answer = new Promise<unknown>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.write({ id, method, params });
    const parsed = schema.safeParse(await answer);
    if (!parsed.success) throw unavailable(`Codex answered ${method} in an unexpected form.`);
    return parsed.data;
  }

  notify(method: string, params?: unknown): void {
    this.write(params === undefined ? { method } : { method, params });
  }

  get exitedReason(): string | null {
    return this.closed;
  }

  /** Stops Codex and its whole group: SIGTERM, then SIGKILL when the grace ends. */
  close(): Promise<void> {
    if (!this.closed) this.fail('Codex was stopped.', null);
    return this.group.stop(this.stopGraceMs);
  }
}
