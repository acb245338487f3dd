'use client';
import { useEffect, useRef } from 'react';
import { finishedOutputStart } from '../../lib/client/preferences/outputStart';
import type { OutputWindow } from '../../lib/client/output/outputWindow';
import type { CommandRow } from '../../lib/protocol/rows';
import type { OutputWindowState } from './useOutputWindow';

/** Lines from either edge of the window at which the next page is read. */
const EDGE_LINES = 150;

interface WindowReadsInput {
  output: OutputWindowState;
  row: CommandRow;
  /** The view follows a running command's tail (useFollowTail). */
  follow: boolean;
  /** The first and last rendered lines (useVirtualLines). */
  firstIndex: number;
  lastIndex: number;
  /** The scrubber is choosing a place: no edge reads until it jumps there. */
  scrubbing: number | null;
  /** Keeps the line at the top of the view still while a page comes or goes (useScrollPlacement). */
  anchorTop: () => void;
  /** Where the first read goes (UX-1: the address's byte offset); null: the tail while running, else the start. */
  startAt?: number | null;
}

/**
 * When the output window reads pages (PWA-2): first where the command is (its tail while it runs,
 * its end once done, or its start when this device prefers that), then the next page when the view nears an edge, new bytes at the end
 * while following, and everything again after a new generation.
 * NOTE: the effects run in this order on purpose: edge reads see the total before following
 * updates it, and following reads the old window before a new generation replaces it.
 */
export function useWindowReads({
  output,
  row,
  follow,
  firstIndex,
  lastIndex,
  scrubbing,
  anchorTop,
  startAt = null,
}: WindowReadsInput) {
  const {
    client,
    win,
    total,
    generation,
    version,
    lines,
    busy,
    jumping,
    pendingScroll,
    load,
    jumpTo,
    rerender,
    startOver,
  } = output;
  /** The address's place is for the first read only; a new generation starts where the view was. */
  const firstPlace = useRef(startAt);

  /** What the last first read was asked for: asked again only when the window, its size or its state changed, so a failed read is not retried in a loop. */
  // NOTE: and the client: a viewer opened before the connection was up read only this device's
  // cache, which may not hold the page; once connected it asks the runtime (it stayed empty).
  const firstReadOf = useRef<{ w: OutputWindow; total: number; complete: boolean; client: unknown } | null>(null);

  // NOTE: `version` too: a new generation's first read waits for a read of the old one still out
  // (it renders when it ends) instead of being refused as busy and never asked again.
  useEffect(() => {
    const w = win.current;
    const asked = firstReadOf.current;
    // The address's place holds until a read filled the window (a read from the cache may not).
    if (!w.empty) firstPlace.current = null;
    if (!w.empty || total === 0 || busy.current || jumping.current) return;
    if (asked && asked.w === w && asked.total === total && asked.complete === row.complete && asked.client === client)
      return;
    firstReadOf.current = { w, total, complete: row.complete, client };
    const place = firstPlace.current;
    if (place !== null) void jumpTo(place, 'start');
    else if (row.complete && finishedOutputStart() === 'start') void jumpTo(0, 'start');
    else void jumpTo(total - 1, 'end');
  }, [generation, total, row.complete, jumpTo, version, client]);

  useEffect(() => {
    const w = win.current;
    // NOTE: not while a place is waiting to be shown either: this effect may see the first and
    // last lines from before a jump's scroll (WebKit clamps the old scroll position to the jump's
    // first page and reports it late), and anchoring to them replaced the place Find asked for.
    if (w.empty || busy.current || jumping.current || pendingScroll.current || scrubbing !== null) return;
    if (lastIndex >= lines.length - EDGE_LINES && !w.atEnd) {
      const next = w.nextRange();
      if (next) {
        anchorTop();
        void load(next, 'add');
      }
    } else if (firstIndex <= EDGE_LINES && !w.atStart) {
      const previous = w.previousRange();
      if (previous) {
        anchorTop();
        void load(previous, 'add');
      }
    }
  }, [firstIndex, lastIndex, lines.length, load, anchorTop, scrubbing]);

  // Following: new bytes at the end are read and the view stays at the bottom.
  useEffect(() => {
    if (row.generation === generation) win.current.totalBytes = Math.max(win.current.totalBytes, row.byteLength);
    if (!follow || win.current.empty) return;
    const next = win.current.nextRange();
    void (async () => {
      if (next) await load(next, 'add');
      pendingScroll.current = { offset: Number.MAX_SAFE_INTEGER, align: 'end' };
      rerender();
    })();
  }, [row.byteLength, row.complete, row.generation, generation, follow, load]);

  // The generation changed under us (the row says so): start over at the same place.
  useEffect(() => {
    if (row.generation !== generation) startOver(row.generation);
  }, [row.generation, row.byteLength, generation]);
}
