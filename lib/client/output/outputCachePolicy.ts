import { MAX_COMMAND_OUTPUT_RANGE_BYTES } from '../../protocol/version';

/** Default bound of the output page cache on this device (PWA-3). */
export const DEFAULT_OUTPUT_CACHE_BYTES = 256 * 1024 * 1024;

/** Where a page of output comes from: one command of one session. */
export function outputSource(sessionId: string, runId: string, commandId: string): string {
  return `${sessionId}:${runId}:${commandId}`;
}

/** The cache key of a page; the generation is part of it, so a replaced generation is never served. */
export function outputPageKey(source: string, generation: number, offset: number): string {
  return `${source}|${generation}|${offset}`;
}

/** What a read answered, as far as caching is concerned (OUT-5). */
export interface ReadOutcome {
  offset: number;
  byteCount: number;
  availableBytes: number;
  complete: boolean;
}

/**
 * Whether a page's bytes are final, so that caching it can never serve a stale page. A full
 * 256 KiB page is final even while its command runs (output only grows within a generation); a
 * shorter page is final only when the command is complete: the page of a running command would
 * otherwise be read again, longer, under the same key.
 */
export function isFinalOutputPage({ offset, byteCount, availableBytes, complete }: ReadOutcome): boolean {
  if (byteCount <= 0) return false;
  if (byteCount >= MAX_COMMAND_OUTPUT_RANGE_BYTES) return true;
  return complete && offset + byteCount <= availableBytes;
}
