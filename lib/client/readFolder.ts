import type { FileEntry } from '../protocol/files';
import type { Project } from '../protocol/rows';
import { withTransaction } from './appDb';
import { RpcError, type RpcClient } from './rpcClient';
import { readSessionsSnapshot } from './snapshotCache';
import { checkedRecord, SnapshotRecordSchema } from './storage/recordSchemas';

const folderKey = (projectDirectory: string, path: string) => `folder:${JSON.stringify([projectDirectory, path])}`;

export type FolderAnswer =
  | { kind: 'folder'; entries: FileEntry[]; fromCache: boolean }
  /** The path is a file: open it instead. */
  | { kind: 'file' }
  /** Not reachable and never saved here: it may be a file saved here, or nothing. */
  | { kind: 'unknown' };

/**
 * One folder of a project (FILE-4): from the runtime while connected, saved for offline browsing
 * (PWA-3); from this device otherwise. A file path answers `file`, so a link to a file reloads.
 */
export async function readFolder(
  client: RpcClient | null,
  projectDirectory: string,
  path: string,
): Promise<FolderAnswer> {
  const key = folderKey(projectDirectory, path);
  if (client) {
    try {
      const { entries } = await client.call('files.list', { projectDirectory, path });
      withTransaction(['snapshots'], 'readwrite', (tx) =>
        tx.objectStore('snapshots').put({ key, entries, savedAt: Date.now() }),
      ).catch((error: unknown) => console.warn('Could not save a folder listing on this device', error));
      return { kind: 'folder', entries, fromCache: false };
    } catch (error) {
      if (error instanceof RpcError && error.code === 'invalid_params' && error.data.kind === 'file')
        return { kind: 'file' };
      if (!(error instanceof RpcError && error.code === 'closed')) throw error;
    }
  }
  const saved = checkedRecord(
    'snapshots',
    SnapshotRecordSchema,
    await withTransaction(['snapshots'], 'readonly', (tx) => tx.objectStore('snapshots').get(key)),
  );
  return saved?.entries ? { kind: 'folder', entries: saved.entries, fromCache: true } : { kind: 'unknown' };
}

/** The projects: from the runtime, or as the session list last saved them. */
export async function readProjects(client: RpcClient | null): Promise<Project[] | null> {
  if (client) {
    try {
      return (await client.call('projects.list')).projects;
    } catch (error) {
      if (!(error instanceof RpcError && error.code === 'closed')) throw error;
    }
  }
  return (await readSessionsSnapshot())?.value.projects ?? null;
}
