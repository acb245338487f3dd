/**
 * The bounded aggregate an agent keeps next to its delta stream (OUT-4), and the two
 * truncation forms an aggregate can arrive in.
 */

/** Codex keeps at most 1 MiB of aggregated output per command. */
export const AGGREGATE_CAP_BYTES = 1024 * 1024;

/** Slack allowed per delta when comparing stream counts with an aggregate (OUT-4: 8 bytes). */
export const LEDGER_SLACK_PER_DELTA = 8;

// NOTE: the closing newline is a lookahead so a marker-like line that ends the head (its last
// newline being the real marker's first) cannot swallow the start of the real marker.
const MARKER = /\n\.\.\. ([0-9][0-9,]*) bytes omitted \.\.\.(?=\n)/g;

export function omittedMarker(omittedBytes: number): string {
  return `\n... ${omittedBytes} bytes omitted ...\n`;
}

export type ParsedAggregate =
  | { form: 'head-tail'; headBytes: number; omittedBytes: number; tailBytes: number; bytes: Buffer }
  | { form: 'plain'; bytes: Buffer };

/**
 * Recognises Codex unified exec's form: an equal head and tail around "... N bytes omitted ...".
 * Output that merely prints such a line is not mistaken for it: the head and tail around the
 * marker must be of equal length (unified exec splits its budget evenly), or the aggregate
 * must be at the cap.
 */
export function parseAggregate(bytes: Buffer): ParsedAggregate {
  // The marker is ASCII; latin1 maps bytes 1:1 so string indexes are byte offsets.
  const text = bytes.toString('latin1');
  let fallback: ParsedAggregate | null = null;
  for (const match of text.matchAll(MARKER)) {
    const headBytes = match.index;
    const tailBytes = bytes.length - headBytes - match[0].length - 1;
    const omittedBytes = Number(match[1]!.replaceAll(',', ''));
    if (!Number.isSafeInteger(omittedBytes) || omittedBytes <= 0) continue;
    const parsed = { form: 'head-tail' as const, headBytes, omittedBytes, tailBytes, bytes };
    if (Math.abs(headBytes - tailBytes) <= 1) return parsed;
    fallback ??= parsed;
  }
  if (fallback && bytes.length >= AGGREGATE_CAP_BYTES - 64) return fallback;
  return { form: 'plain', bytes };
}

/** The head starts this small and doubles as output arrives (never past its half of the cap). */
const FIRST_HEAD_BYTES = 1024;

/**
 * The shell agent's own bounded aggregate, shaped like Codex unified exec's: the whole output
 * while it fits in 1 MiB, else a 512 KiB head, the marker and a 512 KiB tail. Memory stays
 * bounded whatever the command prints, and grows only as output arrives: a 9-byte `echo` costs
 * a kilobyte, not a zero-filled mebibyte (thousands of short commands at once pay for that).
 */
export class HeadTailAggregate {
  private readonly half: number;
  private readonly tailSize: number;
  private head: Buffer = Buffer.alloc(0);
  private headLength = 0;
  /** The tail ring exists only once the head is full. */
  private tail: Buffer = Buffer.alloc(0);
  private tailStart = 0;
  private tailLength = 0;
  private total = 0;

  constructor(capBytes = AGGREGATE_CAP_BYTES) {
    this.half = Math.floor(capBytes / 2);
    this.tailSize = capBytes - this.half;
  }

  get totalBytes(): number {
    return this.total;
  }

  push(chunk: Uint8Array): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headLength < this.half) {
      const take = Math.min(this.half - this.headLength, rest.length);
      this.reserveHead(this.headLength + take);
      this.head.set(rest.subarray(0, take), this.headLength);
      this.headLength += take;
      rest = rest.subarray(take);
    }
    if (rest.length > 0) this.pushTail(rest);
  }

  private reserveHead(length: number): void {
    if (length <= this.head.length) return;
    let size = Math.max(FIRST_HEAD_BYTES, this.head.length * 2);
    while (size < length) size *= 2;
    // allocUnsafe: every byte read back was written first (headLength bounds it).
    const grown = Buffer.allocUnsafe(Math.min(size, this.half));
    this.head.copy(grown, 0, 0, this.headLength);
    this.head = grown;
  }

  private pushTail(chunk: Uint8Array): void {
    // allocUnsafe: only the tailLength bytes from tailStart are ever read, all written first.
    if (this.tail.length === 0) this.tail = Buffer.allocUnsafe(this.tailSize);
    const size = this.tail.length;
    const bytes = chunk.length > size ? chunk.subarray(chunk.length - size) : chunk;
    let writeAt = (this.tailStart + this.tailLength) % size;
    for (let i = 0; i < bytes.length;) {
      const n = Math.min(bytes.length - i, size - writeAt);
      this.tail.set(bytes.subarray(i, i + n), writeAt);
      i += n;
      writeAt = (writeAt + n) % size;
    }
    const overflow = Math.max(0, this.tailLength + bytes.length - size);
    this.tailLength = Math.min(size, this.tailLength + bytes.length);
    this.tailStart = (this.tailStart + overflow) % size;
  }

  private tailBytes(): Buffer {
    const end = this.tailStart + this.tailLength;
    if (end <= this.tail.length) return this.tail.subarray(this.tailStart, end);
    return Buffer.concat([this.tail.subarray(this.tailStart), this.tail.subarray(0, end - this.tail.length)]);
  }

  toBuffer(): Buffer {
    const head = this.head.subarray(0, this.headLength);
    const tail = this.tailBytes();
    const omitted = this.total - head.length - tail.length;
    if (omitted === 0) return Buffer.concat([head, tail]);
    return Buffer.concat([head, Buffer.from(omittedMarker(omitted), 'latin1'), tail]);
  }
}
