import fs from 'node:fs';
import path from 'node:path';

/** A preview watches at most this many folders; past it, changes in new folders go unnoticed. */
const MAX_WATCHED_FOLDERS = 256;
/** Editors write a file in several steps: one refresh per burst. */
const SETTLE_MS = 120;

/**
 * Watches the folders a preview has read from (PRV-6: refresh when a file under the root
 * changes). Only folders the page actually used are watched, not the whole root, so a preview
 * of a project with a large `node_modules` costs a handful of watches.
 */
export class PreviewWatcher {
  private readonly watchers = new Map<string, fs.FSWatcher>();
  private timer: NodeJS.Timeout | null = null;
  private changed: string | null = null;

  constructor(
    private readonly root: string,
    private readonly onChange: (relativePath: string) => void,
  ) {}

  /** Watches `folder` (canonical, under the root) from now on. */
  watchFolder(folder: string): void {
    if (this.watchers.has(folder) || this.watchers.size >= MAX_WATCHED_FOLDERS) return;
    try {
      const watcher = fs.watch(folder, { persistent: false }, (_event, name) => this.noteChange(folder, name));
      watcher.on('error', () => this.unwatch(folder));
      this.watchers.set(folder, watcher);
    } catch {
      // A folder that vanished or cannot be watched simply gives no refresh.
    }
  }

  private unwatch(folder: string): void {
    this.watchers.get(folder)?.close();
    this.watchers.delete(folder);
  }

  private noteChange(folder: string, name: string | Buffer | null): void {
    const base = name === null ? '' : String(name);
    // Editors' swap and backup files are not part of the page.
    if (base.startsWith('.') || base.endsWith('~')) return;
    this.changed = '/' + path.relative(this.root, path.join(folder, base)).split(path.sep).join('/');
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.changed !== null) this.onChange(this.changed);
      this.changed = null;
    }, SETTLE_MS);
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }
}
