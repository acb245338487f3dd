/**
 * The files a saved Bash result was read from (OUT-7): the conversation's transcript, and the
 * result's own file when Claude Code persisted it. A copy of the result kept outside them (the
 * host's, the runtime's) is good while they still hold it. A transcript only grows: it holds a
 * result while it is the same file, no shorter than when the result was read. A persisted result
 * file never changes: it holds while its size and change time are the same. Only the host finds
 * these files; whoever keeps a copy only checks their size and identity, never reads them.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ResultSource } from './hostProtocol';

type Stamp = Pick<ResultSource, 'ino' | 'size' | 'mtimeMs'>;

/** Whether `now` still holds what `recorded` held. */
export function stampHolds(recorded: ResultSource, now: Stamp): boolean {
  if (now.ino !== recorded.ino) return false;
  return recorded.grows ? now.size >= recorded.size : now.size === recorded.size && now.mtimeMs === recorded.mtimeMs;
}

/** Whether every source still holds the result: a file gone, replaced or cut short says no. */
export function sourcesHold(sources: readonly ResultSource[]): boolean {
  return sources.every((source) => {
    try {
      return stampHolds(source, fs.statSync(source.path));
    } catch {
      return false;
    }
  });
}

/** The stamp of one file now; null when it is gone. */
export function sourceOf(file: string, grows: boolean): ResultSource | null {
  try {
    const stat = fs.statSync(file);
    return { path: file, ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs, grows };
  } catch {
    return null;
  }
}

/**
 * Every transcript of conversation `sessionId` under the Claude folder's projects: the SDK names
 * it `<sessionId>.jsonl` in one folder per project, so each project folder is looked in.
 */
export function transcriptSources(projectsDir: string, sessionId: string): ResultSource[] {
  let folders: string[];
  try {
    folders = fs.readdirSync(projectsDir);
  } catch {
    return [];
  }
  return folders
    .map((folder) => sourceOf(path.join(projectsDir, folder, `${sessionId}.jsonl`), true))
    .filter((s): s is ResultSource => s !== null);
}
