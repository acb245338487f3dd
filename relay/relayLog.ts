/** Why the node refused something; each is counted, and logged with ids and sizes only (RLY-1: never payload bytes). */
export type RefusalKind =
  | 'malformed_link_frame'
  | 'foreign_connection'
  | 'foreign_desktop'
  | 'foreign_node'
  | 'too_large'
  | 'text_frame'
  | 'window_exceeded'
  | 'over_budget'
  | 'challenge_failed'
  | 'challenge_timeout'
  | 'bad_desktop_id'
  | 'desktop_offline'
  | 'rate_limited'
  | 'node_full'
  | 'bad_origin'
  | 'malformed_nats_message'
  /** RLY-6: a TLS connection whose ClientHello did not come in time, was not one, or named no desktop of this relay. */
  | 'hello_timeout'
  | 'bad_client_hello'
  | 'unknown_name';

/** What a log line may carry: ids, sizes and codes, nothing a client sent as content. */
export interface LogFields {
  desktop?: string;
  conn?: string;
  node?: string;
  bytes?: number;
  code?: number;
  connections?: number;
}

/** Lines per refusal kind per minute; past that only the counters go up, so a flood cannot fill the disk. */
const LINES_PER_KIND_PER_MINUTE = 20;

export class RelayLog {
  readonly refusals = new Map<RefusalKind, number>();
  private readonly linesThisMinute = new Map<RefusalKind, number>();
  private minute = 0;

  constructor(private readonly write: (line: string) => void) {}

  refused(kind: RefusalKind, fields: LogFields = {}): void {
    this.refusals.set(kind, (this.refusals.get(kind) ?? 0) + 1);
    const minute = Math.floor(Date.now() / 60_000);
    if (minute !== this.minute) {
      this.minute = minute;
      this.linesThisMinute.clear();
    }
    const lines = this.linesThisMinute.get(kind) ?? 0;
    this.linesThisMinute.set(kind, lines + 1);
    if (lines < LINES_PER_KIND_PER_MINUTE)
      this.write(`relay: refused ${kind}${formatFields(fields)} (total ${this.refusals.get(kind)})`);
  }

  info(event: string, fields: LogFields = {}): void {
    this.write(`relay: ${event}${formatFields(fields)}`);
  }

  count(kind: RefusalKind): number {
    return this.refusals.get(kind) ?? 0;
  }
}

function formatFields(fields: LogFields): string {
  return Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => ` ${name}=${String(value)}`)
    .join('');
}
