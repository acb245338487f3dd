import type { CommandRow } from '../protocol/rows';
import { MAX_COMMAND_OUTPUT_RANGE_BYTES } from '../protocol/version';
import { readOutputPage } from './output/readOutputPage';
import type { RpcClient } from './rpcClient';

/** How much of a terminal's latest shells a device replays on open (TERM-3). */
export const TERMINAL_REPLAY_BYTES = 4 * MAX_COMMAND_OUTPUT_RANGE_BYTES;
const PAGE = MAX_COMMAND_OUTPUT_RANGE_BYTES;

/**
 * Where each shell's replay starts: the last TERMINAL_REPLAY_BYTES across the rows (oldest
 * first), each start on a page boundary so the pages are the ones this device saves (PWA-3).
 */
export function replayStarts(
  rows: readonly Pick<CommandRow, 'byteLength'>[],
  budget = TERMINAL_REPLAY_BYTES,
): (number | null)[] {
  const starts: (number | null)[] = rows.map(() => null);
  let left = budget;
  for (let i = rows.length - 1; i >= 0 && left > 0; i--) {
    const length = rows[i]!.byteLength;
    const start = Math.max(0, Math.floor((length - left) / PAGE) * PAGE);
    starts[i] = start;
    left -= length - start;
  }
  return starts;
}

/**
 * Reads one shell's output from `offset` to what is stored now, a page at a time (OUT-5), handing
 * each page to `write`; from this device's pages when offline. Answers where it stopped.
 */
export async function replayRow(
  client: RpcClient | null,
  sessionId: string,
  row: CommandRow,
  offset: number,
  write: (bytes: Uint8Array) => void,
  until = Number.MAX_SAFE_INTEGER,
): Promise<number> {
  while (offset < until) {
    const page = await readOutputPage(client, {
      sessionId,
      row,
      generation: row.generation,
      offset,
      length: Math.min(PAGE, until - offset),
    });
    if (!page || page.bytes.byteLength === 0) return offset;
    write(page.bytes);
    offset += page.bytes.byteLength;
    if (offset >= page.availableBytes) return offset;
  }
  return offset;
}
