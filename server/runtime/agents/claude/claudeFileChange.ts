import { applyPatch, formatPatch, structuredPatch, type StructuredPatchHunk } from 'diff';
import type { FileChange } from '../../../../lib/protocol/rows';
import { wholeTextBody } from '../itemTextBody';

/** Claude's file-editing tools, each a file-change row with a diff (TL-1). */
export const FILE_CHANGE_TOOLS = new Set(['Edit', 'MultiEdit', 'Write', 'NotebookEdit']);

interface EditStep {
  oldString: string;
  newString: string;
  replaceAll: boolean;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function editSteps(tool: string, input: Record<string, unknown>): EditStep[] {
  if (tool === 'MultiEdit' && Array.isArray(input.edits)) {
    return input.edits.map((e) => {
      const edit = record(e);
      return {
        oldString: str(edit.old_string),
        newString: str(edit.new_string),
        replaceAll: edit.replace_all === true,
      };
    });
  }
  return [
    { oldString: str(input.old_string), newString: str(input.new_string), replaceAll: input.replace_all === true },
  ];
}

function applySteps(original: string, steps: EditStep[]): string {
  let text = original;
  for (const step of steps)
    text = step.replaceAll
      ? text.split(step.oldString).join(step.newString)
      : text.replace(step.oldString, () => step.newString);
  return text;
}

/** The file after the edit: Claude's own structured patch applied to the original, else the edit itself. */
function editedFile(original: string, hunks: unknown, steps: EditStep[]): string {
  if (Array.isArray(hunks) && hunks.length > 0) {
    const patched = applyPatch(original, {
      oldFileName: undefined,
      newFileName: undefined,
      oldHeader: undefined,
      newHeader: undefined,
      hunks: hunks as StructuredPatchHunk[],
    });
    if (typeof patched === 'string') return patched;
  }
  return applySteps(original, steps);
}

/** One file's unified diff and its counts, computed by jsdiff. */
function fileChange(path: string, change: FileChange['change'], before: string, after: string): FileChange {
  const patch = structuredPatch(
    change === 'add' ? '/dev/null' : `a/${path}`,
    `b/${path}`,
    before,
    after,
    undefined,
    undefined,
    { context: 3 },
  );
  let added = 0;
  let removed = 0;
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
    }
  }
  // formatPatch starts with a `===` line (and `Index:` when both names are equal); a unified diff begins at `---`.
  const diff = patch.hunks.length === 0 ? '' : formatPatch(patch).replace(/^(Index: [^\n]*\n)?=+\n/, '');
  return { path, change, movePath: null, diff: wholeTextBody(diff), added, removed, binary: false };
}

/**
 * The files one Claude edit tool changed (TL-1). Live, the SDK's structured tool result holds the
 * file as it was (`originalFile`), so the diff is exact with context and line numbers. The saved
 * history keeps only the tool input: an Edit then diffs the replaced text alone, and a Write over
 * an existing file shows its new content (the result text tells created from updated).
 */
export function fileChangesOf(
  tool: string,
  rawInput: unknown,
  toolResult: unknown,
  resultText: string | null,
): FileChange[] {
  const input = record(rawInput);
  const result = record(toolResult);
  const original = typeof result.originalFile === 'string' ? result.originalFile : null;
  if (tool === 'Write') {
    const path = str(input.file_path);
    const created =
      result.type === 'create' ||
      (original === null && result.type !== 'update' && !/has been updated/.test(resultText ?? ''));
    return [fileChange(path, created ? 'add' : 'update', created ? '' : (original ?? ''), str(input.content))];
  }
  if (tool === 'NotebookEdit') {
    const path = str(input.notebook_path);
    const before = typeof result.original_file === 'string' ? result.original_file : '';
    const after = typeof result.updated_file === 'string' ? result.updated_file : str(input.new_source);
    return [fileChange(path, 'update', before, after)];
  }
  const path = str(input.file_path);
  const steps = editSteps(tool, input);
  if (original !== null)
    return [fileChange(path, 'update', original, editedFile(original, result.structuredPatch, steps))];
  // Only the replaced text is known: each snippet as whole lines, so no "no newline" marker appears
  // in a file that has more lines after it.
  const asLines = (text: string) => (text === '' || text.endsWith('\n') ? text : `${text}\n`);
  const before = steps.map((s) => asLines(s.oldString)).join('');
  const after = steps.map((s) => asLines(s.newString)).join('');
  return [fileChange(path, 'update', before, after)];
}
