'use client';
import { useRef, useState, type KeyboardEvent } from 'react';
import { findRenderedNext, findRenderedPrevious, type MatchPlace } from '../../lib/client/output/renderedSearch';
import { readOutputPage } from '../../lib/client/readOutputPage';
import type { RpcClient } from '../../lib/client/rpcClient';
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

/**
 * Find in a command's output (PWA-2): whole pages are read at page boundaries, from the runtime or
 * the offline cache, and searched as a terminal shows them (UX-2), so a match is found by the byte
 * offset of its row however far away it is. "Next" and "previous" go on from the match shown last.
 */
export function useOutputFind(target: FindTarget) {
  const [query, setQueryState] = useState('');
  const [findState, setFindState] = useState<string | null>(null);
  /** Where the match shown last starts. */
  const lastMatch = useRef<MatchPlace | null>(null);
  const findAbort = useRef<AbortController | null>(null);

  /** The view moved by other means: the next search starts from the view again. */
  function forgetMatch() {
    lastMatch.current = null;
  }

  function setQuery(text: string) {
    setQueryState(text);
    setFindState(null);
    forgetMatch();
  }

  async function find(direction: 'next' | 'previous') {
    if (!query) return;
    const { client, sessionId, row, generation, total } = target;
    findAbort.current?.abort();
    const abort = new AbortController();
    findAbort.current = abort;
    setFindState('Searching…');
    const read = async (offset: number, length: number) => {
      const page = await readOutputPage(client, { sessionId, row, generation, offset, length: Math.min(length, MAX_COMMAND_OUTPUT_RANGE_BYTES) });
      if (!page) throw new Error('Part of this output is not saved on this device.');
      return page.bytes;
    };
    const here = lastMatch.current ?? { offset: target.topOfView(), column: 0 };
    try {
      const at =
        direction === 'next'
          ? await findRenderedNext(read, total, query, here, lastMatch.current === null, MAX_COMMAND_OUTPUT_RANGE_BYTES, abort.signal)
          : await findRenderedPrevious(read, total, query, here, MAX_COMMAND_OUTPUT_RANGE_BYTES, abort.signal);
      if (abort.signal.aborted) return;
      if (at === null) {
        setFindState(direction === 'next' ? 'No more matches below.' : 'No more matches above.');
        return;
      }
      setFindState(null);
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
      setQueryState('');
      findAbort.current?.abort();
    }
  }

  return { query, setQuery, findState, find, onFindKey, forgetMatch };
}
