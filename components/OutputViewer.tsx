'use client';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from 'react';
import { parseAnsiLine, type AnsiSegment, type AnsiStyle } from '../lib/client/ansi';
import { OutputWindow } from '../lib/client/outputWindow';
import { readOutputPage } from '../lib/client/readOutputPage';
import { RpcError, type RpcClient } from '../lib/client/rpcClient';
import type { CommandRow, Session } from '../lib/protocol/rows';
import { formatBytes } from './formatting';
import { OutputLineView } from './OutputLines';
import { useOutputFind } from './output/useOutputFind';

const LINE_HEIGHT = 20;
/** Lines from either edge of the window at which the next page is read. */
const EDGE_LINES = 150;
const SCRUBBER_STEPS = 10_000;

type Range = { offset: number; length: number };

/**
 * A command's output of any size (PWA-2). It holds a window of at most four 256 KiB pages
 * (lib/client/outputWindow.ts), virtualized; scrolling near an edge reads the next page and drops
 * the farthest, keeping the visible line still. The scrubber, Start, End and Find jump by byte
 * offset, so a 10 GiB output needs no element taller than the window. A running command's tail is
 * followed; a replaced generation (conflict) re-reads at the same place.
 */
export function OutputViewer({ client, session, row, onClose }: { client: RpcClient | null; session: Session; row: CommandRow; onClose: () => void }) {
  const win = useRef(new OutputWindow(row.byteLength));
  const [version, rerender] = useReducer((n: number) => n + 1, 0);
  const [generation, setGeneration] = useState(row.generation);
  const [error, setError] = useState<string | null>(null);
  const [unsaved, setUnsaved] = useState(false);
  const [follow, setFollow] = useState(!row.complete);
  const [wrap, setWrap] = useState(false);
  const [scrubbing, setScrubbing] = useState<number | null>(null);
  const busy = useRef(false);
  /** A jump is reading its pages: the edge reads wait, or they would anchor to the old view. */
  const jumping = useRef(false);
  const pendingScroll = useRef<{ offset: number; align: 'start' | 'end' | 'center'; delta?: number } | null>(null);
  const parent = useRef<HTMLDivElement>(null);
  const lastScrollTop = useRef(0);
  const total = Math.max(row.byteLength, win.current.totalBytes);

  // `version` counts the window's page loads: the lines change with it, not with any value read here.
  const lines = useMemo(() => win.current.lines(row.complete), [version, row.complete]);
  const segments = useMemo(() => {
    let style: AnsiStyle = {};
    return lines.map((line): AnsiSegment[] => {
      const parsed = parseAnsiLine(line.text, style);
      style = parsed.style;
      return parsed.segments;
    });
  }, [lines]);

  const virtualizer = useVirtualizer({
    count: lines.length,
    getScrollElement: () => parent.current,
    estimateSize: () => LINE_HEIGHT,
    overscan: 40,
    measureElement: wrap ? (element) => element.getBoundingClientRect().height : undefined,
  });

  /** Reads one range; `reset` starts a new window there. */
  const load = useCallback(
    async (range: Range, mode: 'reset' | 'add'): Promise<boolean> => {
      if (busy.current) return false;
      busy.current = true;
      try {
        const page = await readOutputPage(client, { sessionId: session.id, row, generation, offset: range.offset, length: Math.max(1, range.length) });
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
        if (e instanceof RpcError && e.code === 'conflict' && typeof e.data.generation === 'number' && e.data.generation !== generation) {
          // The agent's aggregate replaced the output: read the new generation from the same place.
          pendingScroll.current = { offset: win.current.start, align: 'start' };
          win.current = new OutputWindow(row.byteLength);
          setGeneration(e.data.generation);
        } else {
          setError((e as Error).message);
        }
        return false;
      } finally {
        busy.current = false;
      }
    },
    [client, session.id, row, generation],
  );

  const jumpTo = useCallback(
    async (offset: number, align: 'start' | 'end' | 'center') => {
      const target = Math.min(Math.max(0, offset), Math.max(0, total - 1));
      const w = win.current;
      if (!w.empty && target >= w.start && target < w.end) {
        pendingScroll.current = { offset: target, align };
        rerender();
        return;
      }
      if (total === 0) return;
      jumping.current = true;
      try {
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
        jumping.current = false;
        // The pending scroll waits for the jump's last page; render once more to apply it.
        rerender();
      }
    },
    [load, total],
  );

  const { query, setQuery, findState, find, onFindKey, forgetMatch } = useOutputFind({
    client,
    sessionId: session.id,
    row,
    generation,
    total,
    // The top of the view, not of the rendered lines (they include the virtualizer's overscan).
    topOfView: () => lines[Math.min(lines.length - 1, Math.floor((parent.current?.scrollTop ?? 0) / LINE_HEIGHT))]?.offset ?? 0,
    onFound: (offset) => {
      setFollow(false);
      return jumpTo(offset, 'start');
    },
  });

  // First read: a running command opens at its tail, a finished one at its start.
  useEffect(() => {
    if (!win.current.empty || total === 0) return;
    void jumpTo(row.complete ? 0 : total - 1, row.complete ? 'start' : 'end');
  }, [generation, total, row.complete, jumpTo]);

  // Apply a pending scroll once the lines it refers to are rendered. `version` is a dependency of
  // its own: a jump inside the window changes no line, only where to show them.
  useLayoutEffect(() => {
    const pending = pendingScroll.current;
    if (!pending || lines.length === 0 || jumping.current) return;
    pendingScroll.current = null;
    let index = lines.findIndex((line) => line.offset > pending.offset) - 1;
    if (index < 0) index = lines[0]!.offset > pending.offset ? 0 : lines.length - 1;
    const box = parent.current;
    if (wrap || !box) {
      virtualizer.scrollToIndex(index, { align: pending.align });
      return;
    }
    // Lines have one height without wrapping: place the line exactly.
    const top = index * LINE_HEIGHT;
    const want =
      pending.delta !== undefined
        ? top - pending.delta
        : pending.align === 'start'
          ? top
          : pending.align === 'end'
            ? top + LINE_HEIGHT - box.clientHeight
            : top - (box.clientHeight - LINE_HEIGHT) / 2;
    box.scrollTop = want;
    // NOTE: the browser reports a programmatic scroll a frame later; tell the virtualizer now, so
    // it renders the lines at the new position in this frame instead of one blank frame.
    box.dispatchEvent(new Event('scroll'));
  }, [lines, version, virtualizer, wrap]);

  const items = virtualizer.getVirtualItems();
  const firstIndex = items[0]?.index ?? 0;
  const lastIndex = items[items.length - 1]?.index ?? 0;

  /** Keeps the line at the top of the view still while pages come and go above it. */
  const anchorTop = useCallback(() => {
    const first = lines[firstIndex];
    if (!first || !parent.current) return;
    pendingScroll.current = { offset: first.offset, align: 'start', delta: firstIndex * LINE_HEIGHT - parent.current.scrollTop };
  }, [lines, firstIndex]);

  // Scrolling near an edge reads the next page that way.
  useEffect(() => {
    const w = win.current;
    if (w.empty || busy.current || jumping.current || scrubbing !== null) return;
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

  // Follow a running command: new bytes at the end are read and the view stays at the bottom.
  useEffect(() => {
    win.current.totalBytes = Math.max(win.current.totalBytes, row.byteLength);
    if (!follow || win.current.empty) return;
    const next = win.current.nextRange();
    void (async () => {
      if (next) await load(next, 'add');
      pendingScroll.current = { offset: Number.MAX_SAFE_INTEGER, align: 'end' };
      rerender();
    })();
  }, [row.byteLength, row.complete, follow, load]);

  // The generation changed under us (the row says so): start over at the same place.
  useEffect(() => {
    if (row.generation !== generation) {
      pendingScroll.current = { offset: win.current.start, align: 'start' };
      win.current = new OutputWindow(row.byteLength);
      setGeneration(row.generation);
    }
  }, [row.generation, row.byteLength, generation]);

  // The scrubber commits a position once it rests for a moment (drag, keys or a typed value).
  useEffect(() => {
    if (scrubbing === null) return;
    const timer = setTimeout(() => {
      setFollow(false);
      forgetMatch();
      void jumpTo(Math.floor((scrubbing / SCRUBBER_STEPS) * total), 'start').finally(() => setScrubbing(null));
    }, 250);
    return () => clearTimeout(timer);
  }, [scrubbing, jumpTo, total]);

  const position = scrubbing ?? (total > 0 && lines[firstIndex] ? Math.round((lines[firstIndex]!.offset / total) * SCRUBBER_STEPS) : 0);

  function onScroll() {
    const el = parent.current;
    if (!el) return;
    // NOTE: only a scroll up by the user stops following. Output growing below the view, and the
    // viewer's own scrolls, leave the view short of the bottom for a frame without meaning "stop".
    const movedUp = el.scrollTop < lastScrollTop.current - 1;
    lastScrollTop.current = el.scrollTop;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < LINE_HEIGHT;
    if (follow && movedUp && !atBottom && !jumping.current && pendingScroll.current === null) setFollow(false);
    if (!follow && atBottom && win.current.atEnd && !row.complete) setFollow(true);
  }

  async function copyShown() {
    const text = lines.map((line) => line.text + (line.continues ? '' : '\n')).join('');
    await navigator.clipboard.writeText(text);
  }

  const shownFrom = lines[0]?.offset ?? 0;
  return (
    <>
      <div className="topbar" style={{ borderBottom: 'none', flexWrap: 'wrap' }}>
        <button onClick={onClose} aria-label="Back to timeline">
          ←
        </button>
        <div className="grow ellipsis mono" style={{ minWidth: 120 }}>
          $ {row.command}
        </div>
        <span className="muted" data-testid="output-size">
          {formatBytes(total)}
          {!row.complete && ' · running'}
        </span>
        <button onClick={() => { setScrubbing(null); setFollow(false); forgetMatch(); void jumpTo(0, 'start'); }}>Start</button>
        <button onClick={() => { setScrubbing(null); setFollow(!row.complete); forgetMatch(); void jumpTo(total - 1, 'end'); }}>End</button>
      </div>
      <div className="row" style={{ padding: '0 14px 8px' }}>
        <input
          aria-label="Find in output"
          placeholder="Find"
          className="grow"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={onFindKey}
        />
        <button onClick={() => find('previous')} disabled={!query} aria-label="Previous match">↑</button>
        <button onClick={() => find('next')} disabled={!query} aria-label="Next match">↓</button>
        <button aria-pressed={wrap} onClick={() => setWrap(!wrap)}>Wrap</button>
        <button onClick={copyShown}>Copy</button>
      </div>
      {findState && <p className="muted" role="status" style={{ margin: '0 14px 6px' }}>{findState}</p>}
      {error && <p className="error" role="alert" style={{ margin: '0 14px' }}>{error}</p>}
      {unsaved && !client && <p className="muted" style={{ padding: '0 14px' }}>This part of the output was not saved on this device. It loads when the computer is reachable again.</p>}
      {row.sourceIncomplete && row.complete && <p className="muted" style={{ margin: '0 14px 6px' }}>The agent kept less than the command printed; this may not be all of it.</p>}
      <div className="output-frame">
        <div
          ref={parent}
          onScroll={onScroll}
          className="scroll mono output"
          style={{ padding: 0 }}
          data-testid="output"
          data-window-start={shownFrom}
          data-window-end={lines.length > 0 ? lines[lines.length - 1]!.offset : 0}
          tabIndex={0}
          aria-label="Command output"
        >
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {items.map((item) => (
              <div
                key={item.key}
                ref={wrap ? virtualizer.measureElement : undefined}
                data-index={item.index}
                data-line={item.index}
                data-offset={lines[item.index]?.offset}
                className="output-line"
                style={{
                  position: 'absolute',
                  top: 0,
                  left: 0,
                  right: 0,
                  minHeight: LINE_HEIGHT,
                  height: wrap ? undefined : LINE_HEIGHT,
                  transform: `translateY(${item.start}px)`,
                  whiteSpace: wrap ? 'pre-wrap' : 'pre',
                  wordBreak: wrap ? 'break-all' : undefined,
                }}
              >
                <OutputLineView segments={segments[item.index] ?? []} query={query} />
              </div>
            ))}
          </div>
        </div>
        <input
          type="range"
          className="scrubber"
          aria-label="Position in output"
          min={0}
          max={SCRUBBER_STEPS}
          value={position}
          onChange={(e) => setScrubbing(Number(e.target.value))}
        />
      </div>
    </>
  );
}
