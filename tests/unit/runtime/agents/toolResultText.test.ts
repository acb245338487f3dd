import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bashExitCode,
  resolvePersistedResult,
  toolResultText,
} from '../../../../server/runtime/agents/claude/toolResultText';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) fs.rmSync(dirs.pop()!, { recursive: true, force: true });
});

function claudeFolderWithResult(text: string): { env: NodeJS.ProcessEnv; file: string; root: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-claude-folder-'));
  dirs.push(root);
  const folder = path.join(root, 'projects', '-project', 'session-id', 'tool-results');
  fs.mkdirSync(folder, { recursive: true });
  const file = path.join(folder, 'abc.txt');
  fs.writeFileSync(file, text);
  return { env: { CLAUDE_CONFIG_DIR: root }, file, root };
}

const note = (file: string) =>
  `<persisted-output>\nOutput too large (3MB). Full output saved to: ${file}\n\nPreview (first 2KB):\nline 1\n</persisted-output>`;

describe('Claude tool results as text (OUT-7)', () => {
  it('OUT-7 a text block keeps its text, a tool_reference its tool name, anything else its type in brackets', () => {
    expect(toolResultText('plain')).toBe('plain');
    expect(
      toolResultText([
        { type: 'text', text: 'a' },
        { type: 'tool_reference', tool_name: 'Bash' },
        { type: 'image', source: {} },
      ]),
    ).toBe('a\nBash\n[image]');
    expect(toolResultText(undefined)).toBe('');
  });

  it('OUT-7 a persisted result is read whole from its file inside the Claude folder', () => {
    const { env, file } = claudeFolderWithResult('the whole output\n');
    expect(resolvePersistedResult(note(file), env)).toBe('the whole output\n');
    expect(resolvePersistedResult('not persisted', env)).toBe('not persisted');
  });

  it('OUT-7 a persisted result whose file is gone, or lies outside the Claude folder, is missing', () => {
    const { env, file, root } = claudeFolderWithResult('x');
    fs.rmSync(file);
    expect(resolvePersistedResult(note(file), env)).toBeNull();
    const outside = path.join(root, 'elsewhere.txt');
    fs.writeFileSync(outside, 'secret');
    expect(resolvePersistedResult(note(outside), env)).toBeNull();
    const linked = path.join(root, 'projects', '-project', 'session-id', 'tool-results', 'link.txt');
    fs.symlinkSync(outside, linked);
    expect(resolvePersistedResult(note(linked), env)).toBeNull();
  });

  it('OUT-7 the exit code is 0 for a result that is not an error, else read from "Exit code N"', () => {
    expect(bashExitCode('anything', false)).toBe(0);
    expect(bashExitCode('Exit code 3\noutput', true)).toBe(3);
    expect(bashExitCode('Permission denied', true)).toBeNull();
  });
});
