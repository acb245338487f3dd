import { withTransaction } from './appDb';
import {
  checkedBoundedRecord,
  deleteRecords,
  putWithinBound,
  readAndMarkUsed,
  storedBytes,
} from './storage/boundedStore';
import { requestPersistenceAfterSave } from './storage/persistence';
import type { ProjectFileRef } from './fileChunks';
import type { ChunkHeader, ReadChunk, VerifiedChunk } from './verifiedChunks';

/** Bound of the file chunk cache on this device; least recently used chunks go first (PWA-3). */
const DEFAULT_FILE_CACHE_BYTES = 256 * 1024 * 1024;
/** Larger files are read but not kept: one of them would push everything else out. */
export const MAX_CACHED_FILE_BYTES = 64 * 1024 * 1024;

/**
 * Saves one verified chunk under project, path, version and offset, then evicts least recently
 * used chunks until the cache fits its bound, in one transaction (lib/client/storage).
 */
export async function saveFileChunk(
  ref: ProjectFileRef,
  chunk: VerifiedChunk,
  maxBytes = DEFAULT_FILE_CACHE_BYTES,
): Promise<void> {
  const { header } = chunk;
  // NOTE: a copy, because the chunk is a view into a larger frame buffer.
  const bytes = chunk.data.slice().buffer;
  await putWithinBound(
    'fileChunks',
    {
      projectDirectory: ref.projectDirectory,
      path: ref.path,
      contentVersion: header.contentVersion,
      offset: header.offset,
      header,
      bytes,
    },
    maxBytes,
  );
  void requestPersistenceAfterSave();
}

/** The first chunk's header of the most recently used version this device holds whole, or null. */
export function findCachedFile(ref: ProjectFileRef): Promise<ChunkHeader | null> {
  return withTransaction(['fileChunks'], 'readonly', async (tx) => {
    const store = tx.objectStore('fileChunks');
    const keys = await store.index('byFile').getAllKeys([ref.projectDirectory, ref.path]);
    const offsetsByVersion = new Map<string, Set<number>>();
    for (const [, , version, offset] of keys) {
      let offsets = offsetsByVersion.get(version);
      if (!offsets) offsetsByVersion.set(version, (offsets = new Set()));
      offsets.add(offset);
    }
    let best: { header: ChunkHeader; lastUsed: number } | null = null;
    for (const [version, offsets] of offsetsByVersion) {
      const first = checkedBoundedRecord('fileChunks', await store.get([ref.projectDirectory, ref.path, version, 0]));
      if (!first || !coversWholeFile(first.header, offsets)) continue;
      if (!best || first.lastUsed > best.lastUsed) best = { header: first.header, lastUsed: first.lastUsed };
    }
    return best?.header ?? null;
  });
}

function coversWholeFile(first: ChunkHeader, offsets: Set<number>): boolean {
  if (first.nextOffset === null) return true;
  for (let at = 0; at < first.size; at += first.byteCount) if (!offsets.has(at)) return false;
  return true;
}

/** Reads saved chunks of one version, marking each used, for `readVerifiedChunks` to check again. */
export function cachedChunkReader(ref: ProjectFileRef, contentVersion: string): ReadChunk {
  return async (offset) => {
    const record = await readAndMarkUsed('fileChunks', [ref.projectDirectory, ref.path, contentVersion, offset]);
    if (!record) throw new Error('A saved chunk of this file is missing. Connect to the computer and open it again.');
    return { header: record.header, data: new Uint8Array(record.bytes) };
  };
}

/** Drops the saved chunks of every other version of a file (it was just read whole in `keep`). */
export function forgetOtherVersions(ref: ProjectFileRef, keep: string): Promise<void> {
  return deleteRecords(
    'fileChunks',
    (store) => store.index('byFile').openCursor([ref.projectDirectory, ref.path]),
    (record) => record.contentVersion !== keep,
  );
}

/** Bytes held by the file chunk cache. */
export function fileCacheBytes(): Promise<number> {
  return storedBytes('fileChunks');
}
