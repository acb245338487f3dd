import { LEDGER_SLACK_PER_DELTA, parseAggregate } from './aggregate';
import type { StreamLedger } from './settle';

/**
 * The agent's own saved copy of a command's output, read after the command settled with its
 * source unproven (OUT-4). Codex 0.171 saves at most 64 KiB of a command's output: the whole
 * output up to 65,536 bytes, else a head and a tail around this marker, 65,536 bytes in all
 * (`thread/items/read`; `thread/items/list` with `deferOutput` leaves it out of the page).
 */
export const PERSISTED_CUT_MARKER = '\n... command output truncated for persistence ...\n';
export const PERSISTED_CAP_BYTES = 64 * 1024;

/**
 * The largest saved copy the runtime takes into memory (one at a time). Codex 0.171 never sends
 * more than 64 KiB; the cap bounds what a later version could send for one item.
 */
export const SAVED_COPY_CAP_BYTES = 16 * 1024 * 1024;

export interface SavedCopyInput {
  /** Committed bytes in the settled artifact. */
  artifactBytes: number;
  ledger: StreamLedger;
  /** The aggregate the agent gave at completion: its head and tail and omitted count tell what the command printed. */
  aggregate: Buffer | null;
  copy: Buffer;
  /** Compares the artifact's bytes with the copy; called only when the lengths match. */
  artifactEquals: (copy: Buffer) => boolean;
}

export type SavedCopyDecision =
  /** The copy adds nothing: the artifact stays as it is. */
  | { action: 'keep'; reason: string }
  /** The copy is whole and holds the artifact's very bytes: the artifact is proven in place. */
  | { action: 'prove'; reason: string }
  /** The copy becomes the next generation (OUT-5: the app refreshes the row). */
  | { action: 'replace'; sourceIncomplete: boolean; reason: string };

/** Codex's persistence cut: the marker between a head and a tail of equal length (±4 bytes for a character boundary), or at the cap. */
function isPersistenceCut(copy: Buffer): boolean {
  const text = copy.toString('latin1');
  for (let at = text.indexOf(PERSISTED_CUT_MARKER); at >= 0; at = text.indexOf(PERSISTED_CUT_MARKER, at + 1)) {
    const tail = copy.length - at - PERSISTED_CUT_MARKER.length;
    if (Math.abs(at - tail) <= 4 || copy.length >= PERSISTED_CAP_BYTES - 64) return true;
  }
  return false;
}

/**
 * Whether the copy is everything the command printed. A cut (either marker form) never is. When
 * the completion aggregate was a head and tail, it tells how much was printed: the copy must be
 * that long and start and end with the aggregate's head and tail. When it was a plain aggregate
 * cut at 1 MiB, the copy must start with it. Without one, the copy is what the agent captured.
 * It must not hold less than the stream delivered (8 bytes of slack per delta, as OUT-4).
 */
function provenWhole(input: SavedCopyInput): boolean {
  const { copy, aggregate, ledger } = input;
  if (isPersistenceCut(copy) || parseAggregate(copy).form === 'head-tail') return false;
  if (ledger.bytes > copy.length + LEDGER_SLACK_PER_DELTA * ledger.deltas) return false;
  if (!aggregate) return true;
  const parsed = parseAggregate(aggregate);
  if (parsed.form === 'plain') return copy.subarray(0, aggregate.length).equals(aggregate);
  const printed = parsed.headBytes + parsed.omittedBytes + parsed.tailBytes;
  return (
    copy.length === printed &&
    copy.subarray(0, parsed.headBytes).equals(aggregate.subarray(0, parsed.headBytes)) &&
    copy.subarray(copy.length - parsed.tailBytes).equals(aggregate.subarray(aggregate.length - parsed.tailBytes))
  );
}

/**
 * OUT-4 after settling: a command whose stream was not proven whole gets the agent's saved copy.
 * A whole copy completes the artifact (same bytes in place, else the next generation) and clears
 * `sourceIncomplete`; a cut copy replaces the artifact only when it is longer, and the flag stays.
 */
export function decideSavedCopy(input: SavedCopyInput): SavedCopyDecision {
  const { artifactBytes, copy } = input;
  if (provenWhole(input)) {
    if (copy.length === artifactBytes && input.artifactEquals(copy))
      return { action: 'prove', reason: 'the saved copy is whole and holds the same bytes' };
    return { action: 'replace', sourceIncomplete: false, reason: 'the saved copy is whole' };
  }
  if (copy.length > artifactBytes)
    return { action: 'replace', sourceIncomplete: true, reason: 'the saved copy is cut but longer than the artifact' };
  return { action: 'keep', reason: 'the saved copy is cut and not longer than the artifact' };
}
