/**
 * What the timeline benchmarks time in the fixture page (bench/browser/tl-timeline.ts): a file
 * change row of N diff lines mounted on its own, and a plain list of rows as a reference.
 */
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { FileChangeRowView } from '../../../components/timeline/rows/FileChangeRowView';
import type { RowContext } from '../../../components/timeline/rowContext';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { AgentItemRow, TimelineRow } from '../../../lib/protocol/rows';
import { diffRow } from './timelineFixture';

export interface BenchModes {
  /** Mounts a file change row with a `lines`-line diff; resolves with the ms until its first diff line is on screen and a frame was drawn. */
  renderDiff(lines: number): Promise<number>;
}

function untilShown(selector: string, start: () => void): Promise<number> {
  return new Promise((resolve) => {
    let started = 0;
    const observer = new MutationObserver(() => {
      if (!document.querySelector(selector)) return;
      observer.disconnect();
      requestAnimationFrame(() => resolve(performance.now() - started));
    });
    observer.observe(document.body, { subtree: true, childList: true });
    started = performance.now();
    start();
  });
}

export function benchModes(client: RpcClient, host: HTMLElement): BenchModes {
  const context: RowContext = {
    client,
    now: Date.now(),
    onOpenCommand: () => {},
    onOpenSubagent: () => {},
    waitingForApproval: new Set(),
  };
  let mounted: ReturnType<typeof createRoot> | null = null;
  return {
    renderDiff(lines) {
      mounted?.unmount();
      host.replaceChildren();
      const row = diffRow(lines) as Extract<AgentItemRow, { kind: 'fileChange' }>;
      const root = createRoot(host);
      mounted = root;
      return untilShown('[data-diff-line]', () => root.render(createElement(FileChangeRowView, { row, context })));
    },
  };
}

/** The reference list: the same rows as plain text, every one in the page, nothing read or measured. */
export function renderPlainRows(host: HTMLElement, rows: readonly TimelineRow[]): void {
  const box = document.createElement('div');
  box.className = 'scroll';
  box.dataset.testid = 'timeline';
  box.style.height = '100dvh';
  for (const row of rows) {
    const card = document.createElement('div');
    card.className = 'card timeline-text';
    card.textContent = JSON.stringify(row).slice(0, 600);
    box.append(card);
  }
  host.replaceChildren(box);
}
