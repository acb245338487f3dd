'use client';
import { useCallback, useMemo, useReducer, useRef, useState } from 'react';
import type { ScrollAlign, ScrollRequest } from '../../lib/client/output/scrollPlacement';
import { clampToOutput, OutputWindow } from '../../lib/client/output/outputWindow';
import { readOutputPage } from '../../lib/client/output/readOutputPage';
import { RpcError, type RpcClient } from '../../lib/client/rpcClient';
import type { CommandRow } from '../../lib/protocol/rows';

type Range = { offset: number; length: number };

/**
 * The part of a command's output the viewer holds (PWA-2): at most four 256 KiB pages
 * (lib/client/output/outputWindow.ts) read from the runtime or the offline cache. `load` reads one page
 * into it, `jumpTo` shows a byte offset (reading a new window there unless this one holds it), and
 * `pendingScroll` says where the view goes once the lines are rendered (useScrollPlacement).
 */
export function useOutputWindow({
  client,
  sessionId,
  row,
}: {
  client: RpcClient | null;
  sessionId: string;
  row: CommandRow;
}) {
  const win = useRef(new OutputWindow(row.byteLength));
  const [version, rerender] = useReducer((n: number) => n + 1, 0);
  const [generation, setGeneration] = useState(row.generation);
  const [error, setError] = useState<string | null>(null);
  const [unsaved, setUnsaved] = useState(false);
  const busy = useRef(false);
  /** The read that holds `busy`, for a jump to wait on. */
  const inflight = useRef<Promise<boolean> | null>(null);
  /** Counts jumps: only the latest one asked reads, an earlier one still waiting gives way. */
  const jumps = useRef(0);
  /** A jump is reading its pages: the edge reads wait, or they would anchor to the old view. */
  const jumping = useRef(false);
  const pendingScroll = useRef<ScrollRequest | null>(null);
  // NOTE: the row's size counts only while it is of this window's generation: a read can learn of a
  // new generation before the row does, and the old one's size is past the end of the new one.
  const total = Math.max(row.generation === generation ? row.byteLength : 0, win.current.totalBytes);

  // `version` counts the window's page loads: the lines change with it, not with any value read here.
  const lines = useMemo(() => win.current.lines(row.complete), [version, row.complete]);

  /**
   * A new generation replaced the output: read it again from the same place. Its size is the one
   * the runtime gave with the refusal, or the row's when the row is of that generation already.
   */
  function startOver(nextGeneration: number, byteLength?: number) {
    pendingScroll.current = { offset: win.current.start, align: 'start' };
    win.current = new OutputWindow(byteLength ?? (row.generation === nextGeneration ? row.byteLength : 0));
    setGeneration(nextGeneration);
  }

  /** Reads one range; `reset` starts a new window there. */
  const load = useCallback(
    (range: Range, mode: 'reset' | 'add'): Promise<boolean> => {
      if (busy.current) return Promise.resolve(false);
      busy.current = true;
      const reading = readInto(range, mode);
      inflight.current = reading;
      return reading;
    },
    // `readInto` is made anew with the same dependencies.
    [client, sessionId, row, generation],
  );

  async function readInto(range: Range, mode: 'reset' | 'add'): Promise<boolean> {
    const into = win.current;
    try {
      const page = await readOutputPage(client, {
        sessionId,
        row,
        generation,
        offset: range.offset,
        length: Math.max(1, range.length),
      });
      // A new generation replaced the window while this page was read: the page is of the old one.
      if (win.current !== into) return false;
      if (!page) {
        setUnsaved(true);
        return false;
      }
      setUnsaved(false);
      win.current.totalBytes = Math.max(win.current.totalBytes, page.availableBytes);
      if (mode === 'reset') win.current.reset(range.offset, page.bytes);
      else if (win.current.add(range.offset, page.bytes) === 'ignored') return false;
      rerender();
      return true;
    } catch (e) {
      if (
        e instanceof RpcError &&
        e.code === 'conflict' &&
        typeof e.data.generation === 'number' &&
        e.data.generation !== generation
      ) {
        startOver(e.data.generation, typeof e.data.byteLength === 'number' ? e.data.byteLength : undefined);
      } else {
        setError((e as Error).message);
      }
      return false;
    } finally {
      busy.current = false;
      // The replaced window's first read waited for this one (useWindowReads): render to start it.
      if (win.current !== into) rerender();
    }
  }

  const jumpTo = useCallback(
    async (offset: number, align: ScrollAlign) => {
      const target = clampToOutput(offset, total);
      if (win.current.holds(target)) {
        pendingScroll.current = { offset: target, align };
        rerender();
        return;
      }
      if (total === 0) return;
      const ticket = ++jumps.current;
      jumping.current = true;
      try {
        // A read still out (an edge page, the followed tail) would refuse this jump's read as busy
        // and the jump would be lost (End tapped while a page comes in): it waits for that read.
        while (busy.current && inflight.current) await inflight.current;
        if (ticket !== jumps.current) return;
        pendingScroll.current = { offset: target, align };
        if (await load(OutputWindow.pageAround(target, total), 'reset')) {
          // Context on the far side of the target, so the view around it is full.
          const more = align === 'start' ? win.current.nextRange() : win.current.previousRange();
          if (more) {
            pendingScroll.current = { offset: target, align };
            await load(more, 'add');
          }
        }
      } finally {
        if (ticket === jumps.current) jumping.current = false;
        // The pending scroll waits for the jump's last page; render once more to apply it.
        rerender();
      }
    },
    [load, total],
  );

  return {
    client,
    win,
    lines,
    total,
    version,
    rerender,
    generation,
    error,
    unsaved,
    busy,
    jumping,
    pendingScroll,
    load,
    jumpTo,
    startOver,
  };
}

export type OutputWindowState = ReturnType<typeof useOutputWindow>;
