/**
 * Find in a command's output on the desktop, where its bytes are (PWA-2): one pass over the
 * stored bytes as a terminal shows them (the page's own renderer, `lib/terminal/`), so a phone
 * gets every match's place at once ("match 3 of 17") instead of reading 22 MiB to find one.
 * Bounded in matches and time, yielding to the event loop between pages; `signal` stops it early,
 * and it then answers with the places found so far.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { renderedMatchesAfter, type MatchPlace, type ReadRange } from '../../../lib/terminal/renderedSearch';

export interface FindLimits {
  /** At most this many places are returned; the answer then says it stopped. */
  maxMatches: number;
  /** The search stops after this long and answers what it found (a busy desktop stays responsive). */
  timeBudgetMs: number;
  /** Bytes read and rendered per step between yields to the event loop. */
  pageBytes: number;
}

export const DEFAULT_FIND_LIMITS: FindLimits = { maxMatches: 10_000, timeBudgetMs: 15_000, pageBytes: 1024 * 1024 };

export interface FindAnswer {
  matches: MatchPlace[];
  /** True when every byte up to `searchedBytes` was searched and no limit stopped it. */
  complete: boolean;
  /** The output's length when the search began: a running command's later bytes are not searched. */
  searchedBytes: number;
}

export async function findInOutput(
  read: ReadRange,
  totalBytes: number,
  query: string,
  limits: FindLimits,
  signal: AbortSignal,
  now: () => number = Date.now,
): Promise<FindAnswer> {
  const deadline = now() + limits.timeBudgetMs;
  let stopped = false;
  const paced: ReadRange = async (offset, length) => {
    // NOTE: between pages, not per match: a page of 1 MiB renders in a few milliseconds.
    await yieldToEventLoop();
    if (now() > deadline) {
      stopped = true;
      throw new FindStopped();
    }
    return read(offset, length);
  };
  const matches: MatchPlace[] = [];
  try {
    for await (const place of renderedMatchesAfter(
      paced,
      totalBytes,
      query,
      { offset: 0, column: 0 },
      true,
      limits.pageBytes,
      signal,
    )) {
      if (matches.length === limits.maxMatches) {
        stopped = true;
        break;
      }
      matches.push(place);
    }
  } catch (e) {
    // A stopped or cancelled search answers with the places found so far.
    if (!(e instanceof FindStopped) && !signal.aborted) throw e;
    stopped = true;
  }
  return { matches, complete: !stopped, searchedBytes: totalBytes };
}

class FindStopped extends Error {}
