'use client';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useRef, useState } from 'react';
import { RpcError, type RpcClient } from '../lib/client/rpcClient';
import type { CommandRow, Session } from '../lib/protocol/rows';
import { MAX_COMMAND_OUTPUT_RANGE_BYTES } from '../lib/protocol/version';
import { formatBytes } from './formatting';

const LINE_HEIGHT = 20;

interface Loaded {
  /** Byte offset of the first line shown. */
  start: number;
  /** Byte offset just past the last complete line read. */
  end: number;
  lines: string[];
  /** Bytes after `end` that do not end in a newline yet. */
  carry: Uint8Array;
}

const empty = (start: number): Loaded => ({ start, end: start, lines: [], carry: new Uint8Array(0) });

/** Splits a page into whole lines, keeping the unfinished last line for the next page. */
function appendPage(loaded: Loaded, bytes: Uint8Array, final: boolean): Loaded {
  const joined = new Uint8Array(loaded.carry.length + bytes.length);
  joined.set(loaded.carry);
  joined.set(bytes, loaded.carry.length);
  const lastNewline = joined.lastIndexOf(10);
  const cut = final ? joined.length : lastNewline + 1;
  const text = new TextDecoder().decode(joined.subarray(0, cut));
  const lines = text.length === 0 ? [] : text.replace(/\n$/, '').split('\n');
  return { start: loaded.start, end: loaded.end + cut, lines: loaded.lines.concat(lines), carry: joined.slice(cut) };
}

/**
 * A command's output, read in 256 KiB pages as you scroll (OUT-5), virtualized. A generation
 * conflict refreshes from the row's new generation.
 */
export function OutputViewer({ client, session, row, onClose }: { client: RpcClient | null; session: Session; row: CommandRow; onClose: () => void }) {
  const [loaded, setLoaded] = useState<Loaded>(() => empty(0));
  const [generation, setGeneration] = useState(row.generation);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const parent = useRef<HTMLDivElement>(null);
  const available = row.byteLength;
  const virtualizer = useVirtualizer({ count: loaded.lines.length, getScrollElement: () => parent.current, estimateSize: () => LINE_HEIGHT, overscan: 30 });

  useEffect(() => {
    if (row.generation !== generation) {
      setGeneration(row.generation);
      setLoaded(empty(0));
    }
  }, [row.generation, generation]);

  const readMore = useCallback(async () => {
    if (!client || busy) return;
    const offset = loaded.end + loaded.carry.length;
    if (offset >= available && !(offset === available && loaded.carry.length > 0 && row.complete)) return;
    setBusy(true);
    try {
      const length = Math.max(1, Math.min(MAX_COMMAND_OUTPUT_RANGE_BYTES, available - offset));
      const { result, data } = await client.callBinary('run.chatCommandOutputRead', {
        appSessionId: session.id,
        runId: row.runId,
        commandId: row.commandId,
        generation,
        offset,
        length,
      });
      const final = row.complete && offset + result.byteCount >= result.availableBytes;
      setLoaded((current) => (current.end + current.carry.length === offset ? appendPage(current, data, final) : current));
    } catch (e) {
      if (e instanceof RpcError && e.code === 'conflict' && typeof e.data.generation === 'number') {
        setGeneration(e.data.generation);
        setLoaded(empty(0));
      } else {
        setError((e as Error).message);
      }
    } finally {
      setBusy(false);
    }
  }, [client, busy, loaded, available, row, session.id, generation]);

  const items = virtualizer.getVirtualItems();
  const lastIndex = items.length > 0 ? items[items.length - 1]!.index : -1;
  useEffect(() => {
    if (lastIndex >= loaded.lines.length - 50) void readMore();
  }, [lastIndex, loaded.lines.length, readMore]);

  async function jumpToEnd() {
    const start = Math.max(0, available - MAX_COMMAND_OUTPUT_RANGE_BYTES);
    setLoaded(empty(start));
    requestAnimationFrame(() => virtualizer.scrollToIndex(Number.MAX_SAFE_INTEGER, { align: 'end' }));
  }

  return (
    <>
      <div className="topbar" style={{ borderBottom: 'none' }}>
        <button onClick={onClose} aria-label="Back to timeline">
          ←
        </button>
        <div className="grow ellipsis mono">$ {row.command}</div>
        <span className="muted">{formatBytes(available)}</span>
        <button onClick={() => { setLoaded(empty(0)); virtualizer.scrollToIndex(0); }}>Start</button>
        <button onClick={jumpToEnd}>End</button>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div ref={parent} className="scroll mono" style={{ padding: 0 }} data-testid="output" tabIndex={0} aria-label="Command output">
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {items.map((item) => (
            <div
              key={item.key}
              data-line={item.index}
              style={{ position: 'absolute', top: 0, left: 0, right: 0, height: LINE_HEIGHT, transform: `translateY(${item.start}px)`, whiteSpace: 'pre', padding: '0 12px' }}
            >
              {loaded.lines[item.index]}
            </div>
          ))}
        </div>
      </div>
    </>
  );
}
