import { z } from 'zod';
import { SAVED_COPY_CAP_BYTES } from '../../output/agentCopy';
import type { CodexCall } from './codexHistory';
import { CODEX, ThreadItemsReadResultSchema } from './codexProtocol';

/** How long one `thread/items/read` may take before the saved copy is given up. */
export const SAVED_OUTPUT_READ_TIMEOUT_MS = 30_000;
/** After a restart the lookup may start Codex and resume the thread first. */
export const SAVED_OUTPUT_LOOKUP_TIMEOUT_MS = 120_000;

const SavedCommandSchema = z.object({
  type: z.literal('commandExecution'),
  status: z.string(),
  aggregatedOutput: z.string().nullable().optional(),
});

/** Codex's saved command item: its output, or why there is none yet. */
type SavedItem = { kind: 'output'; text: string } | { kind: 'none' } | { kind: 'not-saved-yet' };

/** `work`, or an error once `timeoutMs` passed: a Codex that never answers must not hold the queue of saved-copy reads. */
export async function withinTimeout<T>(work: Promise<T>, what: string, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Codex did not answer ${what} within ${Math.round(timeoutMs / 1000)} s.`)),
      timeoutMs,
    );
    timer.unref();
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function readSavedItem(
  call: CodexCall,
  threadId: string,
  turnId: string,
  itemId: string,
  timeoutMs: number,
): Promise<SavedItem> {
  // One item per request: an answer holds at most one saved output.
  const page = await withinTimeout(
    call(CODEX.threadItemsRead, { threadId, turnId, itemIds: [itemId] }, ThreadItemsReadResultSchema),
    CODEX.threadItemsRead,
    timeoutMs,
  );
  return savedItemOf(page.data.map((entry) => entry.item).find((candidate) => candidate.id === itemId));
}

function savedItemOf(item: unknown): SavedItem {
  const parsed = SavedCommandSchema.safeParse(item);
  if (!parsed.success || parsed.data.status === 'inProgress') return { kind: 'not-saved-yet' };
  const text = parsed.data.aggregatedOutput;
  return typeof text === 'string' ? { kind: 'output', text } : { kind: 'none' };
}

/** The bytes of a saved output, unless over SAVED_COPY_CAP_BYTES (Codex 0.171 saves at most 64 KiB). */
function boundedBytes(saved: SavedItem): Buffer | null {
  // A UTF-16 length over the cap is over it in UTF-8 too: such a text is never encoded.
  if (saved.kind !== 'output' || saved.text.length > SAVED_COPY_CAP_BYTES) return null;
  const bytes = Buffer.from(saved.text, 'utf8');
  return bytes.length > SAVED_COPY_CAP_BYTES ? null : bytes;
}

/** The saved output of a command item found in Codex's history (a read the runtime did not get to before it stopped). */
export function savedOutputOfItem(item: unknown): Buffer | null {
  return boundedBytes(savedItemOf(item));
}

/**
 * The output Codex saved for one command (`thread/items/read`), for a command whose live stream
 * was not proven whole (OUT-4). Codex saves an item when it completes, so the first read is at
 * once; an item not saved yet is asked for once more after the turn ended. A copy over
 * SAVED_COPY_CAP_BYTES is not taken (Codex 0.171 saves at most 64 KiB).
 */
export async function readSavedCommandOutput(
  call: CodexCall,
  item: { threadId: string; turnId: string; itemId: string },
  turnEnded: Promise<unknown>,
  timeoutMs = SAVED_OUTPUT_READ_TIMEOUT_MS,
): Promise<Buffer | null> {
  let saved = await readSavedItem(call, item.threadId, item.turnId, item.itemId, timeoutMs);
  if (saved.kind === 'not-saved-yet') {
    await turnEnded;
    saved = await readSavedItem(call, item.threadId, item.turnId, item.itemId, timeoutMs);
  }
  return boundedBytes(saved);
}
