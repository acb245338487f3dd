import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import type { FileChange } from '../../../../lib/protocol/rows';
import { textBody } from '../textBody';
import type { FileUpdateChange } from './codexItemSchemas';

/** Git's rule of thumb: a NUL byte means binary. */
function looksBinary(text: string): boolean {
  return text.includes('\u0000') || /^Binary files .* differ$/m.test(text) || /^GIT binary patch$/m.test(text);
}

/** A path as people read it: relative to the project when inside it. */
function displayPath(file: string, cwd: string): string {
  if (!path.isAbsolute(file)) return file;
  const relative = path.relative(cwd, file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

/** Lines added and removed by a unified diff's hunks (headers not counted). */
export function countDiffLines(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  let inHunk = false;
  for (const line of diff.split('\n')) {
    if (line.startsWith('@@')) inHunk = true;
    else if (!inHunk) continue;
    else if (line.startsWith('+')) added += 1;
    else if (line.startsWith('-')) removed += 1;
  }
  return { added, removed };
}

/** A whole-file diff made from contents; the library's `====` banner line is dropped. */
function contentDiff(oldName: string, newName: string, before: string, after: string): string {
  const patch = createTwoFilesPatch(oldName, newName, before, after, '', '');
  const start = patch.indexOf('--- ');
  return start < 0 ? patch : patch.slice(start).replace(/^(---|\+\+\+) (\S+)\t?$/gm, '$1 $2');
}

/**
 * One file of a Codex `fileChange` as a row's file (TL-1). Codex gives an added or deleted file's
 * whole content and an updated file's hunks without headers: headers are added, contents become
 * a diff; a binary file gets `binary` and no diff text.
 */
export function codexFileChange(change: FileUpdateChange, cwd: string, inlineBytes?: number): FileChange {
  const shown = displayPath(change.path, cwd);
  const movePath =
    change.kind.type === 'update' && change.kind.move_path ? displayPath(change.kind.move_path, cwd) : null;
  const binary = looksBinary(change.diff);
  let diff = '';
  if (!binary) {
    if (change.kind.type === 'add') diff = contentDiff('/dev/null', `b/${shown}`, '', change.diff);
    else if (change.kind.type === 'delete') diff = contentDiff(`a/${shown}`, '/dev/null', change.diff, '');
    else if (change.diff.startsWith('--- ') || change.diff.startsWith('diff ')) diff = change.diff;
    else diff = `--- a/${shown}\n+++ b/${movePath ?? shown}\n${change.diff}`;
  }
  const counts = countDiffLines(diff);
  return { path: shown, change: change.kind.type, movePath, diff: textBody(diff, inlineBytes), ...counts, binary };
}
