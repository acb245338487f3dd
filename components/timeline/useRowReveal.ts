'use client';
import type { VirtualItem } from '@tanstack/react-virtual';
import { useEffect, useState } from 'react';

/**
 * Which of the rows the list mounts show their body yet (TL-4). A row that comes into the
 * virtualized window first holds its place at its known (or estimated) height; the bodies follow
 * one per task, the rows nearest the view first. Scrolling back brings a few rows into the window
 * each frame: mounted all at once, their Markdown, diffs and layout were one long task; one body
 * per task keeps each task short and lets the browser draw between them.
 */
export function useRowReveal(items: VirtualItem[], viewTop: number, viewBottom: number): (key: string) => boolean {
  const [revealed, setRevealed] = useState<ReadonlySet<string>>(() => new Set());
  const pending = items.filter((item) => !revealed.has(String(item.key)));
  const distance = (item: VirtualItem) =>
    item.end < viewTop ? viewTop - item.end : item.start > viewBottom ? item.start - viewBottom : 0;
  const next =
    pending.length === 0
      ? null
      : String(pending.reduce((best, item) => (distance(item) < distance(best) ? item : best)).key);
  const mounted = items.map((item) => String(item.key)).join('\n');

  useEffect(() => {
    if (next === null) return;
    const timer = setTimeout(() => {
      setRevealed((current) => {
        // Rows that left the window are forgotten: mounted again, they wait their turn again.
        const keep = new Set(mounted.split('\n'));
        const updated = new Set([...current].filter((key) => keep.has(key)));
        updated.add(next);
        return updated;
      });
    }, 0);
    return () => clearTimeout(timer);
  }, [next, mounted]);

  return (key) => revealed.has(key);
}
