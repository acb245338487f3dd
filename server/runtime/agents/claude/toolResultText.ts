import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isInside } from '../../files/pathInside';

/**
 * A tool_result's content as text (OUT-7): a string stays as it is; of a block list, a text
 * block keeps its text, a tool_reference block becomes the tool's name, any other block its type
 * in square brackets.
 */
export function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: unknown) => {
      if (typeof block !== 'object' || block === null) return '';
      const b = block as { type?: unknown; text?: unknown; tool_name?: unknown; name?: unknown };
      if (b.type === 'text' && typeof b.text === 'string') return b.text;
      if (b.type === 'tool_reference') return String(b.tool_name ?? b.name ?? '');
      return `[${String(b.type)}]`;
    })
    .join('\n');
}

const PERSISTED = /^<persisted-output>\n[^\n]*Full output saved to: ([^\n]+)\n/;

/** The projects folder of the main Claude folder (CLAUDE_CONFIG_DIR when set, else ~/.claude). */
export function claudeProjectsDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.CLAUDE_CONFIG_DIR || path.join(os.homedir(), '.claude'), 'projects');
}

/** The file a `<persisted-output>` note names, as written; null for a result kept inline. */
export function persistedResultFile(text: string): string | null {
  return PERSISTED.exec(text)?.[1]?.trim() ?? null;
}

/**
 * Claude Code keeps a result over about 30 KB in a file of its own and leaves a
 * `<persisted-output>` note in the transcript. The host (never the runtime) reads that file, and
 * only when it lies in a `tool-results` folder of the main Claude folder's projects.
 * Returns null when the file is gone.
 */
export function resolvePersistedResult(text: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const match = PERSISTED.exec(text);
  if (!match) return text;
  let file: string;
  let root: string;
  try {
    file = fs.realpathSync(match[1]!.trim());
    root = fs.realpathSync(claudeProjectsDir(env));
  } catch {
    return null;
  }
  const inside = isInside(root, file) && path.basename(path.dirname(file)) === 'tool-results';
  if (!inside) return null;
  return fs.readFileSync(file, 'utf8');
}

/** "Exit code N" on the first line of a failed Bash result (OUT-7); 0 for a result that is not an error. */
export function bashExitCode(text: string, isError: boolean): number | null {
  if (!isError) return 0;
  const match = /^Exit code (\d+)/.exec(text);
  return match ? Number(match[1]) : null;
}
