import { AGGREGATE_CAP_BYTES, LEDGER_SLACK_PER_DELTA, parseAggregate } from './aggregate';

/** What the agent sent for one command, counted as it arrived (the stream ledger of OUT-4). */
export interface StreamLedger {
  bytes: number;
  deltas: number;
}

export interface SettleInput {
  /** Committed bytes in the artifact. */
  artifactBytes: number;
  /** An append failed or the file lost bytes: the artifact cannot be trusted to hold the stream (OUT-3). */
  storageFailed: boolean;
  ledger: StreamLedger;
  /** The agent's bounded aggregate at completion, when it has one. */
  aggregate: Buffer | null;
  /** Compares the artifact's committed bytes with the aggregate; called only when the lengths match. */
  artifactEquals: (aggregate: Buffer) => boolean;
}

export type SettleDecision =
  /** Keep the stored stream as it is and mark it complete. */
  | { action: 'keep'; sourceIncomplete: boolean; reason: string }
  /** Write the aggregate as the next generation. */
  | { action: 'replace'; sourceIncomplete: boolean; reason: string }
  /** Nothing trustworthy to show: keep the failure on the row (the partial file must not look complete). */
  | { action: 'keep-failed'; sourceIncomplete: true; reason: string };

/**
 * OUT-4, "a truncated aggregate never replaces a longer stream":
 * - a head + "N bytes omitted" + tail aggregate proves the stream when the ledger count plus
 *   8 bytes reaches head + omitted + tail;
 * - a plain aggregate is a classic 1 MiB cut when the stream delivered more than it holds
 *   (8 bytes of slack per delta); it can never prove the stream;
 * - same bytes complete in place; different untruncated bytes become the next generation;
 * - after a failed append the aggregate, when there is one, becomes the next generation.
 * sourceIncomplete is false only when what the viewer shows is proven to be everything.
 */
export function decideSettlement(input: SettleInput): SettleDecision {
  const { artifactBytes, storageFailed, ledger, aggregate } = input;

  if (!aggregate) {
    if (storageFailed)
      return { action: 'keep-failed', sourceIncomplete: true, reason: 'append failed and no aggregate' };
    return { action: 'keep', sourceIncomplete: true, reason: 'no aggregate to prove the stream' };
  }

  const parsed = parseAggregate(aggregate);
  const slack = LEDGER_SLACK_PER_DELTA * ledger.deltas;

  if (storageFailed) {
    const whole =
      parsed.form === 'plain' && aggregate.length < AGGREGATE_CAP_BYTES && ledger.bytes <= aggregate.length + slack;
    return {
      action: 'replace',
      sourceIncomplete: !whole,
      reason: 'append failed: the aggregate replaces the artifact',
    };
  }

  if (parsed.form === 'head-tail') {
    const printed = parsed.headBytes + parsed.omittedBytes + parsed.tailBytes;
    const proven = ledger.bytes + LEDGER_SLACK_PER_DELTA >= printed;
    if (proven) return { action: 'keep', sourceIncomplete: false, reason: 'stream proven complete' };
    if (artifactBytes > aggregate.length)
      return { action: 'keep', sourceIncomplete: true, reason: 'stream longer than the truncated aggregate' };
    return {
      action: 'replace',
      sourceIncomplete: true,
      reason: 'unproven stream not longer than the truncated aggregate',
    };
  }

  const classicCut = ledger.bytes > aggregate.length + slack;
  if (classicCut) {
    // A plain aggregate cut at 1 MiB: the stream holds more, but nothing proves it holds all.
    return { action: 'keep', sourceIncomplete: true, reason: 'stream longer than the cut aggregate' };
  }
  if (artifactBytes === aggregate.length && input.artifactEquals(aggregate)) {
    return { action: 'keep', sourceIncomplete: false, reason: 'same bytes' };
  }
  // An untruncated aggregate holds everything the command printed, unless it sits exactly at
  // the cap, where a classic cut cannot be ruled out.
  const possiblyCut = aggregate.length >= AGGREGATE_CAP_BYTES;
  return { action: 'replace', sourceIncomplete: possiblyCut, reason: 'different bytes, not truncated' };
}
