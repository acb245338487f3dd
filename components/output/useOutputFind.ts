'use client';
import { useRef, useState, type KeyboardEvent } from 'react';
import {
  findRenderedNext,
  findRenderedPrevious,
  nextMatchIndex,
  type MatchPlace,
} from '../../lib/terminal/renderedSearch';
import { readOutputPage } from '../../lib/client/output/readOutputPage';
import { RpcError, type RpcClient } from '../../lib/client/rpcClient';
import { JSONRPC_CODES } from '../../lib/protocol/errors';
import type { CommandRow } from '../../lib/protocol/rows';
import { MAX_COMMAND_OUTPUT_RANGE_BYTES } from '../../lib/protocol/version';

interface FindTarget {
  client: RpcClient | null;
  sessionId: string;
  row: CommandRow;
  generation: number;
  /** Bytes of the output. */
  total: number;
  /** The byte offset at the top of the view: a first search starts there. */
  topOfView: () => number;
  /** Shows a match: the viewer jumps to its offset. */
  onFound: (offset: number) => Promise<void>;
}

/** Every place of one query, found by the runtime (PWA-2). */
interface DesktopMatches {
  query: string;
  generation: number;
  matches: MatchPlace[];
  complete: boolean;
  searchedBytes: number;
}

const matchCount = (found: DesktopMatches) =>
  `${found.matches.length.toLocaleString('en-US')}${found.complete ? '' : '+'}`;

/**
 * Find in a command's output (PWA-2). While connected the runtime searches the whole output where
 * its bytes are and answers every match's place, so the viewer says "Match 3 of 17" and jumps
 * straight to any of them. Offline (or from a runtime without the method) whole pages are read at
 * page boundaries from the offline cache and searched as a terminal shows them (UX-2). Either
 * way a match is the byte offset of its row; "next" and "previous" go on from the match shown last.
 */
export function useOutputFind(target: FindTarget) {
  const [query, setQueryState] = useState('');
  const [findState, setFindState] = useState<string | null>(null);
  /** Where the match shown last starts. */
  const lastMatch = useRef<MatchPlace | null>(null);
  const findAbort = useRef<AbortController | null>(null);
  const desktopMatches = useRef<DesktopMatches | null>(null);
  /** False once the runtime said it has no find method: this viewer then searches pages itself. */
  const desktopFind = useRef(true);

  /** The view moved by other means: the next search starts from the view again. */
  function forgetMatch() {
    lastMatch.current = null;
  }

  function setQuery(text: string) {
    setQueryState(text);
    setFindState(null);
    forgetMatch();
    findAbort.current?.abort();
    desktopMatches.current = null;
  }

  /** The runtime's answer for this query, asked once per query and generation (and again when a running command grew past it). */
  async function matchesFromDesktop(client: RpcClient, abort: AbortController): Promise<DesktopMatches | null> {
    const { sessionId, row, generation, total } = target;
    const known = desktopMatches.current;
    if (
      known &&
      known.query === query &&
      known.generation === generation &&
      (row.complete || known.searchedBytes >= total)
    )
      return known;
    const searchId = crypto.randomUUID();
    const cancel = () => void client.call('run.chatCommandOutputFindCancel', { searchId }).catch(() => undefined);
    abort.signal.addEventListener('abort', cancel, { once: true });
    try {
      const answer = await client.call('run.chatCommandOutputFind', {
        appSessionId: sessionId,
        runId: row.runId,
        commandId: row.commandId,
        generation,
        query,
        searchId,
      });
      const found = {
        query,
        generation: answer.generation,
        matches: answer.matches,
        complete: answer.complete,
        searchedBytes: answer.searchedBytes,
      };
      if (!abort.signal.aborted) desktopMatches.current = found;
      return found;
    } catch (error) {
      // An older runtime, or the connection went: search the pages here.
      const missing = error instanceof RpcError && error.jsonrpcCode === JSONRPC_CODES.method_not_found;
      if (missing) desktopFind.current = false;
      if (missing || (error instanceof RpcError && error.code === 'closed')) return null;
      throw error;
    } finally {
      abort.signal.removeEventListener('abort', cancel);
    }
  }

  async function findInPages(
    direction: 'next' | 'previous',
    here: MatchPlace,
    abort: AbortController,
  ): Promise<MatchPlace | null> {
    const { client, sessionId, row, generation, total } = target;
    const read = async (offset: number, length: number) => {
      const page = await readOutputPage(client, {
        sessionId,
        row,
        generation,
        offset,
        length: Math.min(length, MAX_COMMAND_OUTPUT_RANGE_BYTES),
      });
      if (!page) throw new Error('Part of this output is not saved on this device.');
      return page.bytes;
    };
    return direction === 'next'
      ? findRenderedNext(
          read,
          total,
          query,
          here,
          lastMatch.current === null,
          MAX_COMMAND_OUTPUT_RANGE_BYTES,
          abort.signal,
        )
      : findRenderedPrevious(read, total, query, here, MAX_COMMAND_OUTPUT_RANGE_BYTES, abort.signal);
  }

  async function find(direction: 'next' | 'previous') {
    if (!query) return;
    findAbort.current?.abort();
    const abort = new AbortController();
    findAbort.current = abort;
    setFindState('Searching…');
    const here = lastMatch.current ?? { offset: target.topOfView(), column: 0 };
    try {
      const found = target.client && desktopFind.current ? await matchesFromDesktop(target.client, abort) : null;
      if (abort.signal.aborted) return;
      let at: MatchPlace | null;
      if (found) {
        if (found.matches.length === 0) {
          setFindState(found.complete ? 'No matches.' : 'No matches in the part searched.');
          return;
        }
        const first = lastMatch.current === null;
        let index = nextMatchIndex(found.matches, here, direction, first);
        // A first search finds from the view on; with nothing below it (a finished command opens
        // at its end, UX-1) it goes round to the first match, and says so.
        const wrapped = first && index === -1;
        if (wrapped) index = direction === 'next' ? 0 : found.matches.length - 1;
        at = index === -1 ? null : found.matches[index]!;
        if (at)
          setFindState(
            `Match ${(index + 1).toLocaleString('en-US')} of ${matchCount(found)}${wrapped ? (direction === 'next' ? ' (from the top)' : ' (from the end)') : ''}`,
          );
        else
          setFindState(
            direction === 'next'
              ? `No more matches below (${matchCount(found)} in all).`
              : `No more matches above (${matchCount(found)} in all).`,
          );
      } else {
        at = await findInPages(direction, here, abort);
        // As above: a first search with nothing below the view goes round once.
        if (!at && lastMatch.current === null && direction === 'next' && here.offset > 0)
          at = await findInPages(direction, { offset: 0, column: 0 }, abort);
        if (abort.signal.aborted) return;
        setFindState(at ? null : direction === 'next' ? 'No more matches below.' : 'No more matches above.');
      }
      if (!at) return;
      lastMatch.current = at;
      await target.onFound(at.offset);
    } catch (e) {
      if (!abort.signal.aborted) setFindState((e as Error).message);
    }
  }

  function onFindKey(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'Enter') {
      event.preventDefault();
      void find(event.shiftKey ? 'previous' : 'next');
    } else if (event.key === 'Escape') {
      setQuery('');
    }
  }

  return { query, setQuery, findState, find, onFindKey, forgetMatch };
}
