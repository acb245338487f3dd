'use client';
import { useEffect, useRef, useState } from 'react';
import { splitSourceLines } from '../../../lib/terminal/sourceLines';
import { renderTerminalLines, type TerminalLine } from '../../../lib/terminal/terminalLines';
import { readOutputPage } from '../../../lib/client/output/readOutputPage';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { CommandRow } from '../../../lib/protocol/rows';

/** Bytes read from the end of the output: a few lines' worth, one small page of the 256 KiB path (OUT-5). */
const TAIL_BYTES = 4096;
export const TAIL_LINES = 4;
/** While a command runs its row changes up to 10 times a second (SES-4): the tail is read again at most this often. */
const REREAD_MS = 1000;

/**
 * The last rows of the output's end as a terminal shows them (UX-2): a progress bar is its last
 * state, escape sequences style the text instead of showing. A read from the middle begins at its
 * first line start, the line before belongs to bytes not read.
 */
function lastLines(bytes: Uint8Array, offset: number, unfinished: boolean): TerminalLine[] {
  const from = offset > 0 ? bytes.indexOf(10) + 1 : 0;
  const rows = renderTerminalLines(splitSourceLines(bytes.subarray(from), offset + from, unfinished)).lines;
  while (rows.length > 0 && rows.at(-1)!.text.trim() === '') rows.pop();
  return rows.slice(-TAIL_LINES);
}

/**
 * The last few lines of a command's output, shown inline on its card (TL-1): read through the
 * same page path as the viewer (`readOutputPage`, cached on this device), again as it grows.
 */
export function useOutputTail(client: RpcClient | null, sessionId: string, row: CommandRow): TerminalLine[] {
  const [lines, setLines] = useState<TerminalLine[]>([]);
  const { byteLength } = row;
  const [readAt, setReadAt] = useState(-1);
  const lastReadTime = useRef(0);

  useEffect(() => {
    if (byteLength === 0 || byteLength === readAt) return;
    let live = true;
    // A throttle, not a debounce: a row updated every 100 ms must not keep pushing the read back.
    const wait = Math.max(0, lastReadTime.current + REREAD_MS - Date.now());
    const timer = setTimeout(() => {
      const offset = Math.max(0, byteLength - TAIL_BYTES);
      lastReadTime.current = Date.now();
      readOutputPage(client, {
        sessionId,
        row,
        generation: row.generation,
        offset,
        length: byteLength - offset,
        save: false,
      }).then(
        (page) => {
          if (!live || !page) return;
          setLines(lastLines(page.bytes, offset, !row.complete));
          setReadAt(byteLength);
        },
        (error: unknown) => live && console.warn('Could not read the end of a command output', error),
      );
    }, wait);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [client, sessionId, row, byteLength, readAt]);

  return lines;
}
