/**
 * Claude Bash results kept whole in the runtime (OUT-7, SES-8). A slice through the host costs a
 * round trip with the bytes as base64 in JSON; a reader pages through a result slice by slice.
 * So the first read of a result answers its slice from the host and fetches the whole result
 * once, in pieces; later slices are cut here while the files it came from still hold it
 * (resultSources.ts). A result over `maxResultBytes`, or one whose files the host could not name,
 * keeps paging through the host. The kept results together stay under `maxTotalBytes`, the least
 * lately read going first.
 */
import type { ResultSource } from './hostProtocol';
import { sourcesHold, stampHolds } from './resultSources';

export interface ResultCacheLimits {
  /** The largest result kept whole. */
  maxResultBytes: number;
  /** All kept results together. */
  maxTotalBytes: number;
  /** How much of a result one fetch through the host carries. */
  pieceBytes: number;
}

export const DEFAULT_RESULT_CACHE_LIMITS: ResultCacheLimits = {
  maxResultBytes: 64 * 1024 * 1024,
  maxTotalBytes: 128 * 1024 * 1024,
  pieceBytes: 4 * 1024 * 1024,
};

/** What the host answered for one range of a result; `sources` null when it named none. */
export interface ResultPiece {
  bytes: Buffer;
  availableBytes: number;
  sources: ResultSource[] | null;
}

export type FetchResultRange = (offset: number, length: number) => Promise<ResultPiece>;

interface Kept {
  bytes: Buffer;
  sources: ResultSource[];
}

function cut(bytes: Buffer, offset: number, length: number): { bytes: Buffer; availableBytes: number } {
  return {
    bytes: bytes.subarray(Math.min(offset, bytes.length), Math.min(offset + length, bytes.length)),
    availableBytes: bytes.length,
  };
}

/** Whether a later piece came from the same files as the first, still holding the same result. */
function sameSources(first: readonly ResultSource[], later: readonly ResultSource[] | null): boolean {
  return (
    later !== null &&
    later.length === first.length &&
    first.every((source, i) => later[i]!.path === source.path && stampHolds(source, later[i]!))
  );
}

export class ClaudeResultCache {
  private readonly kept = new Map<string, Kept>();
  private readonly filling = new Map<string, Promise<void>>();
  private keptBytes = 0;
  private readonly limits: ResultCacheLimits;

  constructor(limits: Partial<ResultCacheLimits> = {}) {
    this.limits = { ...DEFAULT_RESULT_CACHE_LIMITS, ...limits };
  }

  /** Bytes of every result kept. */
  get totalBytes(): number {
    return this.keptBytes;
  }

  /**
   * One slice of the result `key`: cut from the kept copy while its files hold it, else fetched
   * through `fetch` (and, the first time, the whole result fetched to keep).
   */
  async slice(
    key: string,
    offset: number,
    length: number,
    fetch: FetchResultRange,
  ): Promise<{ bytes: Buffer; availableBytes: number }> {
    await this.filling.get(key);
    const kept = this.kept.get(key);
    if (kept && sourcesHold(kept.sources)) {
      this.kept.delete(key);
      this.kept.set(key, kept);
      return cut(kept.bytes, offset, length);
    }
    if (kept) this.forget(key);
    const answer = await fetch(offset, length);
    if (
      answer.sources !== null &&
      answer.sources.length > 0 &&
      answer.availableBytes <= this.limits.maxResultBytes &&
      !this.filling.has(key)
    ) {
      const filled = this.fill(key, answer.availableBytes, answer.sources, fetch)
        .catch(() => undefined)
        .finally(() => this.filling.delete(key));
      this.filling.set(key, filled);
    }
    return { bytes: answer.bytes, availableBytes: answer.availableBytes };
  }

  /** Fetches the whole result piece by piece and keeps it, unless it changed on the way. */
  private async fill(key: string, size: number, sources: ResultSource[], fetch: FetchResultRange): Promise<void> {
    const whole = Buffer.allocUnsafe(size);
    for (let at = 0; at < size; at += this.limits.pieceBytes) {
      const length = Math.min(this.limits.pieceBytes, size - at);
      const piece = await fetch(at, length);
      if (piece.availableBytes !== size || piece.bytes.length !== length || !sameSources(sources, piece.sources))
        return;
      piece.bytes.copy(whole, at);
    }
    this.keep(key, { bytes: whole, sources });
  }

  private keep(key: string, entry: Kept): void {
    this.forget(key);
    this.kept.set(key, entry);
    this.keptBytes += entry.bytes.length;
    for (const [oldest] of this.kept) {
      if (this.keptBytes <= this.limits.maxTotalBytes) break;
      this.forget(oldest);
    }
  }

  private forget(key: string): void {
    const entry = this.kept.get(key);
    if (!entry) return;
    this.kept.delete(key);
    this.keptBytes -= entry.bytes.length;
  }
}
