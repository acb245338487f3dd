import fs from 'node:fs';
import path from 'node:path';

/** A preview watches at most this many folders; past it, changes in new folders go unnoticed. */
const MAX_WATCHED_FOLDERS = 256;
/** Editors write a file in several steps: one refresh per burst. */
const SETTLE_MS = 120;
/** SEC-9: at most one refresh per this long, however fast files change (each refresh reloads the page on every client). */
const MIN_REFRESH_INTERVAL_MS = 1000;
/** A folder sending more events than this in one second is flooding: its watch is closed for a while. */
const FLOOD_EVENTS_PER_SECOND = 200;
/** How long a flooding folder goes unwatched; doubled each time it floods again, up to the cap. */
const FLOOD_PAUSE_MS = 2000;
const MAX_FLOOD_PAUSE_MS = 30_000;

interface FolderWatch {
  watcher: fs.FSWatcher | null;
  windowStart: number;
  eventsInWindow: number;
  pauseMs: number;
  reopen: NodeJS.Timeout | null;
}

/**
 * Watches the folders a preview has read from (PRV-6: refresh when a file under the root
 * changes). Only folders the page actually used are watched, not the whole root, so a preview
 * of a project with a large `node_modules` costs a handful of watches.
 *
 * SEC-9: a folder where files churn (a build writing thousands of files) must not stall the
 * runtime or its clients. Refreshes are coalesced and rate-limited, and a folder flooding the
 * event loop with events has its watch closed, then reopened after a pause with one refresh,
 * since it surely changed meanwhile.
 */
export class PreviewWatcher {
  private readonly folders = new Map<string, FolderWatch>();
  private timer: NodeJS.Timeout | null = null;
  private changed: string | null = null;
  private lastRefresh = 0;
  private closed = false;

  constructor(
    private readonly root: string,
    private readonly onChange: (relativePath: string) => void,
  ) {}

  /** Watches `folder` (canonical, under the root) from now on. */
  watchFolder(folder: string): void {
    if (this.closed || this.folders.has(folder) || this.folders.size >= MAX_WATCHED_FOLDERS) return;
    const watch: FolderWatch = {
      watcher: null,
      windowStart: 0,
      eventsInWindow: 0,
      pauseMs: FLOOD_PAUSE_MS,
      reopen: null,
    };
    this.folders.set(folder, watch);
    if (!this.open(folder, watch)) this.folders.delete(folder);
  }

  private open(folder: string, watch: FolderWatch): boolean {
    try {
      const watcher = fs.watch(folder, { persistent: false }, (_event, name) => this.noteEvent(folder, watch, name));
      watcher.on('error', () => this.unwatch(folder));
      watch.watcher = watcher;
      return true;
    } catch {
      // A folder that vanished or cannot be watched simply gives no refresh.
      return false;
    }
  }

  private unwatch(folder: string): void {
    const watch = this.folders.get(folder);
    watch?.watcher?.close();
    if (watch?.reopen) clearTimeout(watch.reopen);
    this.folders.delete(folder);
  }

  private noteEvent(folder: string, watch: FolderWatch, name: string | Buffer | null): void {
    const now = Date.now();
    if (now - watch.windowStart >= 1000) {
      watch.windowStart = now;
      watch.eventsInWindow = 0;
    }
    watch.eventsInWindow += 1;
    if (watch.eventsInWindow > FLOOD_EVENTS_PER_SECOND) return this.pauseFlooding(folder, watch);
    const base = name === null ? '' : String(name);
    // Editors' swap and backup files are not part of the page.
    if (base.startsWith('.') || base.endsWith('~')) return;
    this.noteChange(folder, base);
  }

  private pauseFlooding(folder: string, watch: FolderWatch): void {
    watch.watcher?.close();
    watch.watcher = null;
    const pause = watch.pauseMs;
    watch.pauseMs = Math.min(pause * 2, MAX_FLOOD_PAUSE_MS);
    watch.reopen = setTimeout(() => {
      watch.reopen = null;
      watch.windowStart = 0;
      if (this.closed || !this.open(folder, watch)) return this.unwatch(folder);
      this.noteChange(folder, '');
    }, pause);
    watch.reopen.unref();
  }

  private noteChange(folder: string, base: string): void {
    this.changed = '/' + path.relative(this.root, path.join(folder, base)).split(path.sep).join('/');
    if (this.timer) return;
    const wait = Math.max(SETTLE_MS, this.lastRefresh + MIN_REFRESH_INTERVAL_MS - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.lastRefresh = Date.now();
      if (this.changed !== null) this.onChange(this.changed);
      this.changed = null;
    }, wait);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const folder of [...this.folders.keys()]) this.unwatch(folder);
  }
}
