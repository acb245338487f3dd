'use client';
import { routeHash } from '../../lib/client/appRoute';
import type { FileEntry } from '../../lib/protocol/files';
import { formatBytes } from '../formatting';
import { EmptyState } from '../EmptyState';
import { EntryIcon } from './EntryIcon';

/** One folder's entries as links: folders first, then files with their sizes (FILE-4). */
export function FolderList({
  projectDirectory,
  path,
  entries,
}: {
  projectDirectory: string;
  path: string;
  entries: FileEntry[];
}) {
  if (entries.length === 0)
    return (
      <EmptyState
        name="folder"
        title="This folder is empty"
        hint="Hidden files such as .env are never listed. Go up with the path above to pick another folder."
      />
    );
  const join = (name: string) => (path ? `${path}/${name}` : name);
  return (
    <ul className="folder-list" aria-label="Folder contents">
      {entries.map((entry) => (
        <li key={entry.name}>
          <a href={routeHash({ kind: 'files', projectDirectory, path: join(entry.name) })} data-kind={entry.kind}>
            <EntryIcon kind={entry.kind === 'directory' ? 'directory' : 'file'} name={entry.name} />
            <span className="grow ellipsis">{entry.name}</span>
            <span className="muted">{entry.kind === 'directory' ? 'folder' : formatBytes(entry.size)}</span>
          </a>
        </li>
      ))}
    </ul>
  );
}
