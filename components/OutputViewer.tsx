'use client';
import { useRef, useState } from 'react';
import { lineIndexAtScrollTop } from '../lib/client/output/scrollPlacement';
import { storedTextOf } from '../lib/client/output/storedText';
import { linesAsText } from '../lib/client/output/outputWindow';
import type { RpcClient } from '../lib/client/rpcClient';
import type { CommandRow, Session } from '../lib/protocol/rows';
import { OutputLineList } from './output/OutputLineList';
import { OutputNotices } from './output/OutputNotices';
import { OutputScrubber } from './output/OutputScrubber';
import { OutputToolbar } from './output/OutputToolbar';
import { useFollowTail } from './output/useFollowTail';
import { useOutputFind } from './output/useOutputFind';
import { useOutputScrubber } from './output/useOutputScrubber';
import { useOutputWindow } from './output/useOutputWindow';
import { useScrollPlacement } from './output/useScrollPlacement';
import { useVirtualLines } from './output/useVirtualLines';
import { useWindowReads } from './output/useWindowReads';
import { useOutputPosition } from './navigation/useOutputPosition';
import { EmptyState } from './EmptyState';

interface OutputViewerProps {
  client: RpcClient | null;
  session: Session;
  row: CommandRow;
  onClose: () => void;
  /** Where to open (UX-1: the address's byte offset); null: the tail while running, else the start. */
  initialOffset?: number | null;
  /** The offset at the top of the view once it settles, null while following the tail (UX-1). */
  onPosition?: (offset: number | null) => void;
}

/**
 * A command's output of any size (PWA-2). It holds a window of at most four 256 KiB pages
 * (useOutputWindow), virtualized (useVirtualLines); scrolling near an edge reads the next page and
 * drops the farthest, keeping the visible line still (useWindowReads, useScrollPlacement). The
 * scrubber, Start, End and Find jump by byte offset, so a 10 GiB output needs no element taller
 * than the window. A running command's tail is followed (useFollowTail); a replaced generation
 * (conflict) re-reads at the same place.
 */
export function OutputViewer({ client, session, row, onClose, initialOffset = null, onPosition }: OutputViewerProps) {
  const scrollBox = useRef<HTMLDivElement>(null);
  const [wrap, setWrap] = useState(false);
  const output = useOutputWindow({ client, sessionId: session.id, row });
  const { lines, total, jumpTo } = output;
  const { follow, setFollow, onScroll } = useFollowTail(output, row, initialOffset === null && !row.complete);
  const schedulePosition = useOutputPosition(output, follow, scrollBox, onPosition);
  const list = useVirtualLines(lines, wrap, scrollBox);

  const finder = useOutputFind({
    client,
    sessionId: session.id,
    row,
    generation: output.generation,
    total,
    // The top of the view, not of the rendered lines (they include the virtualizer's overscan).
    topOfView: () => lines[lineIndexAtScrollTop(scrollBox.current?.scrollTop ?? 0, lines.length)]?.offset ?? 0,
    onFound: (offset) => {
      setFollow(false);
      return jumpTo(offset, 'start');
    },
  });

  // At the output's last line the scrubber rests at its end, as a scrollbar would, however few lines fill the view.
  const box = scrollBox.current;
  const showsEnd = output.win.current.atEnd && box !== null && box.scrollTop + box.clientHeight >= box.scrollHeight - 2;
  const scrubber = useOutputScrubber({
    total,
    topOffset: lines[list.firstIndex]?.offset,
    showsEnd,
    jumpTo,
    onJump: () => {
      setFollow(false);
      finder.forgetMatch();
    },
  });

  const bytesBetween = (from: number, to: number) => output.win.current.bytesBetween(from, to);
  /** Copy: the stored bytes of the window's lines (UX-2), or their text if the bytes went meanwhile. */
  const copyAll = () =>
    void navigator.clipboard.writeText(storedTextOf(bytesBetween, lines, 0, lines.length - 1) ?? linesAsText(lines));

  const { anchorTop } = useScrollPlacement(output, list, wrap, scrollBox);
  useWindowReads({
    output,
    row,
    follow,
    firstIndex: list.firstIndex,
    lastIndex: list.lastIndex,
    scrubbing: scrubber.scrubbing,
    anchorTop,
    startAt: initialOffset,
  });

  /** Start and End leave the scrubber and the last match, and follow a running command's end. */
  function jumpToEdge(edge: 'start' | 'end') {
    scrubber.setScrubbing(null);
    setFollow(edge === 'end' && !row.complete);
    finder.forgetMatch();
    void (edge === 'end' ? jumpTo(total - 1, 'end') : jumpTo(0, 'start'));
  }

  return (
    <>
      <OutputToolbar
        row={row}
        total={total}
        onClose={onClose}
        onStart={() => jumpToEdge('start')}
        onEnd={() => jumpToEdge('end')}
        query={finder.query}
        onQueryChange={finder.setQuery}
        onFindKey={finder.onFindKey}
        onFind={(direction) => void finder.find(direction)}
        wrap={wrap}
        onWrapChange={setWrap}
        onCopy={copyAll}
        onStop={
          client
            ? () => void client.call('run.cancel', { sessionId: session.id, runId: row.runId }).catch(() => undefined)
            : undefined
        }
      />
      <OutputNotices
        findState={finder.findState}
        error={output.error}
        unsaved={output.unsaved}
        offline={!client}
        sourceIncomplete={row.sourceIncomplete && row.complete}
      />
      {total === 0 && row.complete && (
        <EmptyState
          name="output"
          title="This command printed nothing"
          hint={
            row.status === 'exited'
              ? `It finished with exit ${row.exitCode} and wrote no output. Go back to the timeline to run another.`
              : 'It wrote no output. Go back to the timeline to run another.'
          }
        />
      )}
      <div className="output-frame">
        <OutputLineList
          scrollBox={scrollBox}
          lines={lines}
          list={list}
          wrap={wrap}
          query={finder.query}
          onScroll={(view) => {
            onScroll(view);
            schedulePosition();
          }}
          storedText={(first, last) => storedTextOf(bytesBetween, lines, first, last)}
        />
        <OutputScrubber position={scrubber.position} onScrub={scrubber.setScrubbing} />
      </div>
    </>
  );
}
