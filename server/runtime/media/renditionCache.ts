import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** A kept rendition: its file in the cache folder and its size. */
export interface CachedRendition {
  file: string;
  size: number;
}

/**
 * The renditions made so far, one file each in the data folder (FILE-11), bounded by bytes: past
 * `maxBytes` the least recently read go. What an earlier run left is picked up at start (oldest
 * first), and files a stopped run was still writing are removed.
 */
export class RenditionCache {
  /** In order of last use, oldest first (a Map keeps insertion order). */
  private readonly entries = new Map<string, CachedRendition>();
  private totalBytes = 0;

  constructor(
    private readonly folder: string,
    private readonly maxBytes: number,
  ) {
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    const found: { key: string; entry: CachedRendition; mtimeMs: number }[] = [];
    for (const name of fs.readdirSync(folder)) {
      const file = path.join(folder, name);
      const match = /^([0-9a-f]{32})\.[a-z0-9]+$/.exec(name);
      if (!match) {
        fs.rmSync(file, { force: true });
        continue;
      }
      const stat = fs.statSync(file);
      found.push({ key: match[1]!, entry: { file, size: stat.size }, mtimeMs: stat.mtimeMs });
    }
    for (const { key, entry } of found.sort((a, b) => a.mtimeMs - b.mtimeMs)) this.remember(key, entry);
    this.evict();
  }

  /** The key of one rendition: the original's version and how it was asked for. */
  static keyOf(parts: readonly (string | number)[]): string {
    return crypto.createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 32);
  }

  /** A kept rendition, now the most recently used, or null. */
  get(key: string): CachedRendition | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (!fs.existsSync(entry.file)) {
      this.forget(key);
      return null;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  /** Where a new rendition is written before `add` moves it in. */
  partPath(key: string): string {
    return path.join(this.folder, `${key}.${crypto.randomBytes(6).toString('hex')}.part`);
  }

  /** Moves a finished part file in under its key, then makes room. */
  add(key: string, partFile: string, extension: string): CachedRendition {
    const file = path.join(this.folder, `${key}.${extension}`);
    fs.renameSync(partFile, file);
    this.forget(key);
    const entry = { file, size: fs.statSync(file).size };
    this.remember(key, entry);
    this.evict(key);
    return entry;
  }

  private remember(key: string, entry: CachedRendition): void {
    this.entries.set(key, entry);
    this.totalBytes += entry.size;
  }

  private forget(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.totalBytes -= entry.size;
  }

  /** Least recently used first, never `keep` (the one just made, which a reader is about to read). */
  private evict(keep?: string): void {
    for (const [key, entry] of this.entries) {
      if (this.totalBytes <= this.maxBytes) return;
      if (key === keep) continue;
      this.forget(key);
      fs.rmSync(entry.file, { force: true });
    }
  }
}
