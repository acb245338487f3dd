import { describe, expect, it } from 'vitest';
import { parseFileDiff } from '../../../../lib/client/diff/parseFileDiff';

const DIFF = [
  '--- a/src/app.ts',
  '+++ b/src/app.ts',
  '@@ -1,3 +1,4 @@',
  ' keep',
  '-old',
  '+new',
  '+more',
  ' end',
  '@@ -10,2 +11,2 @@',
  ' ten',
  '-eleven',
  '+twelve',
  '',
].join('\n');

describe('TL-1 file change diffs are parsed per line with numbers and counts', () => {
  it('numbers context, added and removed lines from each hunk header', () => {
    const parsed = parseFileDiff(DIFF, true);
    expect(parsed.unparsed).toBeNull();
    expect(parsed.added).toBe(3);
    expect(parsed.removed).toBe(2);
    expect(parsed.pendingChars).toBe(0);
    expect(parsed.lines.map((l) => [l.kind, l.text, l.oldLine, l.newLine])).toEqual([
      ['hunk', '@@ -1,3 +1,4 @@', null, null],
      ['context', 'keep', 1, 1],
      ['removed', 'old', 2, null],
      ['added', 'new', null, 2],
      ['added', 'more', null, 3],
      ['context', 'end', 3, 4],
      ['hunk', '@@ -10,2 +11,2 @@', null, null],
      ['context', 'ten', 10, 11],
      ['removed', 'eleven', 11, null],
      ['added', 'twelve', null, 12],
    ]);
  });

  it('parses a prefix as far as its last whole line, the cut hunk included, and says how much is pending', () => {
    const cutAt = DIFF.indexOf('+twelve') + 3;
    const prefix = DIFF.slice(0, cutAt);
    const parsed = parseFileDiff(prefix, false);
    expect(parsed.unparsed).toBeNull();
    expect(parsed.lines.map((l) => [l.kind, l.text, l.oldLine, l.newLine]).slice(-4)).toEqual([
      ['context', 'end', 3, 4],
      ['hunk', '@@ -10,2 +11,1 @@', null, null],
      ['context', 'ten', 10, 11],
      ['removed', 'eleven', 11, null],
    ]);
    expect(parsed.pendingChars).toBe(3);
  });

  it('shows the first lines of one long hunk that was cut', () => {
    const long = [
      '--- a/x',
      '+++ b/x',
      '@@ -1,1000 +1,1000 @@',
      ...Array.from({ length: 1000 }, (_, i) => ` line ${i + 1}`),
    ].join('\n');
    const parsed = parseFileDiff(long.slice(0, long.indexOf(' line 41') + 4), false);
    expect(parsed.unparsed).toBeNull();
    expect(parsed.lines.filter((l) => l.kind === 'context')).toHaveLength(40);
    expect(parsed.lines.at(-1)).toEqual({ kind: 'context', text: 'line 40', oldLine: 40, newLine: 40 });
  });

  it('keeps text that is not a diff as notes, with the reason, instead of dropping it', () => {
    const parsed = parseFileDiff('@@ -1,1 +1,1 @@\n+a\n+b\n+c\n', true);
    expect(parsed.unparsed).toMatch(/line/);
    expect(parsed.lines.map((l) => l.text)).toEqual(['@@ -1,1 +1,1 @@', '+a', '+b', '+c', '']);
  });

  it('keeps the "no newline" marker as a note', () => {
    const parsed = parseFileDiff('--- /dev/null\n+++ b/x\n@@ -0,0 +1,1 @@\n+a\n\\ No newline at end of file\n', true);
    expect(parsed.lines.map((l) => l.kind)).toEqual(['hunk', 'added', 'note']);
  });
});
