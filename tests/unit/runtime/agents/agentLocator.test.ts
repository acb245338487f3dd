import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { locateClaude, locateCodex } from '../../../../server/runtime/agents/agentLocator';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) fs.rmSync(dirs.pop()!, { recursive: true, force: true });
});

function fakeProgram(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-locator-'));
  dirs.push(dir);
  const file = path.join(dir, name);
  fs.writeFileSync(file, '#!/bin/sh\n', { mode: 0o755 });
  return file;
}

describe('finding the agents (SES-2)', () => {
  it('SES-2 HBCODE_CODEX_BIN wins when it names a program, and makes Codex unavailable when it names none', () => {
    const program = fakeProgram('my-codex');
    expect(locateCodex({ HBCODE_CODEX_BIN: program })).toEqual({ file: program, args: [], origin: 'env' });
    expect(locateCodex({ HBCODE_CODEX_BIN: path.join(path.dirname(program), 'missing') })).toBeNull();
  });

  it('SES-2 without the variable, `codex` on PATH comes next', () => {
    const program = fakeProgram('codex');
    const saved = process.env.PATH;
    process.env.PATH = path.dirname(program);
    try {
      expect(locateCodex({})).toEqual({ file: program, args: [], origin: 'path' });
    } finally {
      process.env.PATH = saved;
    }
  });

  it('SES-2 Claude needs the pinned Agent SDK: with an empty agent cache it is unavailable whatever HBCODE_CLAUDE_BIN says', () => {
    const program = fakeProgram('claude');
    const saved = process.env.HBCODE_AGENT_CACHE;
    process.env.HBCODE_AGENT_CACHE = path.dirname(program);
    try {
      expect(locateClaude({ HBCODE_CLAUDE_BIN: program })).toBeNull();
    } finally {
      if (saved === undefined) delete process.env.HBCODE_AGENT_CACHE;
      else process.env.HBCODE_AGENT_CACHE = saved;
    }
  });
});
