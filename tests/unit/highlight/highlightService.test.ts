import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHighlightService } from '../../../lib/highlight/highlightService';
import { FIRST_BATCH_LINES, MAX_HIGHLIGHT_BYTES, MAX_HIGHLIGHT_LINE_LENGTH } from '../../../lib/highlight/limits';
import { languageForPath, resolveLanguage } from '../../../lib/highlight/languages';
import { TokenBatchSchema, unpackLine, type TokenBatch, type TokenLine } from '../../../lib/highlight/tokens';
import { REPO_ROOT } from '../../../server/runtime/paths';

const FIXTURES = path.join(REPO_ROOT, 'tests', 'fixtures', 'highlight');
const lineText = (line: TokenLine) => line.map(([text]) => text).join('');
/** A packed batch as the page renders it: each line's tokens cut from the line's own text. */
const unpack = (batch: TokenBatch, text: string) => {
  const lines = text.split('\n');
  return {
    firstLine: batch.firstLine,
    done: batch.done,
    lines: Array.from({ length: batch.lineCount }, (_, i) =>
      unpackLine(batch, batch.firstLine + i, lines[batch.firstLine + i]!),
    ),
  };
};

describe("HL-1 highlight service (the worker's pure module)", () => {
  it('HL-1 a fresh service tokenizes a TypeScript fixture exactly as stored beside it, on the first call', async () => {
    // A fresh service each time: the first tokenization compiles the grammar, and must already be right.
    const service = createHighlightService();
    const source = fs.readFileSync(path.join(FIXTURES, 'sample.ts'), 'utf8');
    expect(await service.open('doc', source, 'typescript', 'light')).toBe(true);
    const batch = service.next('doc', 1000);
    const expected: unknown = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'sample.ts.tokens.json'), 'utf8'));
    expect(unpack(batch, source)).toEqual(expected);
    expect(TokenBatchSchema.safeParse(batch).success).toBe(true);
  });

  it('HL-2 batches continue the grammar state: a block comment open across a batch boundary stays a comment', async () => {
    const service = createHighlightService();
    const filler = Array.from({ length: FIRST_BATCH_LINES - 1 }, (_, i) => `const v${i} = ${i};`);
    const text = [
      ...filler,
      '/* opened at the end of the first batch',
      'export const notCode = 1;',
      '*/',
      'export const code = 2;',
    ].join('\n');
    await service.open('doc', text, 'typescript', 'light');
    const first = unpack(service.next('doc', FIRST_BATCH_LINES), text);
    expect(first).toMatchObject({ firstLine: 0, done: false });
    expect(first.lines).toHaveLength(FIRST_BATCH_LINES);
    const second = unpack(service.next('doc', 1000), text);
    expect(second.firstLine).toBe(FIRST_BATCH_LINES);
    expect(second.done).toBe(true);
    const commentColour = first.lines[FIRST_BATCH_LINES - 1]![0]![1];
    expect(second.lines[0]).toEqual([['export const notCode = 1;', commentColour, 0]]);
    const code = second.lines[2]!;
    expect(lineText(code)).toBe('export const code = 2;');
    expect(code[0]).toEqual(['export', expect.not.stringMatching(commentColour), 0]);
  });

  it('HL-2 lines past the stated length are left as one plain token; files past the size limit are declined', async () => {
    const service = createHighlightService();
    const long = `const x = "${'a'.repeat(MAX_HIGHLIGHT_LINE_LENGTH)}";`;
    const text = `${long}\nconst y = 1;`;
    await service.open('doc', text, 'typescript', 'light');
    const { lines } = unpack(service.next('doc', 10), text);
    expect(lines[0]).toHaveLength(1);
    expect(lines[0]![0]![0]).toBe(long);
    expect(lines[1]!.length).toBeGreaterThan(3);
    expect(await service.open('huge', 'x'.repeat(MAX_HIGHLIGHT_BYTES + 1), 'typescript', 'light')).toBe(false);
    expect(() => service.next('huge', 10)).toThrow('not open');
  });

  it('HL-2 a packed batch whose offsets or palette do not add up is refused at the page edge', async () => {
    const service = createHighlightService();
    const text = 'const a = 1;\nconst b = 2;';
    await service.open('doc', text, 'typescript', 'light');
    const batch = service.next('doc', 10);
    expect(TokenBatchSchema.safeParse(batch).success).toBe(true);
    expect(TokenBatchSchema.safeParse({ ...batch, lineCount: batch.lineCount + 1 }).success).toBe(false);
    expect(TokenBatchSchema.safeParse({ ...batch, palette: [''] }).success).toBe(false);
    expect(TokenBatchSchema.safeParse({ ...batch, tokenEnds: Array.from(batch.tokenEnds) }).success).toBe(false);
  });

  it('HL-1 languages resolve from extensions and fence names; unknown ones stay plain', async () => {
    expect(languageForPath('src/app.tsx')).toBe('tsx');
    expect(languageForPath('scripts/run.sh')).toBe('shellscript');
    expect(languageForPath('Makefile')).toBeNull();
    expect(languageForPath('.env')).toBeNull();
    expect(resolveLanguage('TS')).toBe('typescript');
    expect(resolveLanguage('brainfuck')).toBeNull();
    const block = await createHighlightService().highlightBlock('SELECT 1;', 'sql', 'dark');
    expect(block[0]!.some(([text, colour]) => text === 'SELECT' && colour !== '')).toBe(true);
  });
});
