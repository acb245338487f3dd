import { describe, expect, it } from 'vitest';
import { diffGutter, tokenRuns } from '../../../../components/timeline/diff/diffLineRuns';
import type { TokenLine } from '../../../../lib/highlight/tokens';

describe('TL-4 a highlighted diff line renders as few runs as look the same', () => {
  const line: TokenLine = [
    ['export', '#d73a49', 0],
    [' ', '', 0],
    ['const', '#d73a49', 0],
    [' ', '', 0],
    ['value5', '#005cc5', 0],
    [' = ', '#d73a49', 0],
    ['compute', '#6f42c1', 0],
    ['(', '', 0],
    [')', '', 0],
    [';', '', 0],
  ];

  it('TL-4 joins blank tokens to the run before them and neighbours of one style, keeping the text', () => {
    const runs = tokenRuns(line);
    expect(runs).toEqual([
      ['export const ', '#d73a49', 0],
      ['value5', '#005cc5', 0],
      [' = ', '#d73a49', 0],
      ['compute', '#6f42c1', 0],
      ['();', '', 0],
    ]);
    expect(runs.map(([text]) => text).join('')).toBe(line.map(([text]) => text).join(''));
  });

  it('TL-4 keeps an underlined blank token apart (its decoration shows) and does not change the tokens given', () => {
    const underlined: TokenLine = [
      ['a', '#111111', 0],
      ['  ', '#111111', 4],
      ['b', '#111111', 0],
    ];
    expect(tokenRuns(underlined)).toEqual([
      ['a', '#111111', 0],
      ['  ', '#111111', 4],
      ['b', '#111111', 0],
    ]);
    expect(line[0]).toEqual(['export', '#d73a49', 0]);
  });

  it('TL-1 the gutter holds both line numbers padded to one width and the sign', () => {
    expect(diffGutter({ kind: 'added', text: 'x', oldLine: null, newLine: 12 }, 4)).toBe('       12 + ');
    expect(diffGutter({ kind: 'context', text: 'x', oldLine: 9, newLine: 10 }, 3)).toBe('  9  10   ');
    expect(diffGutter({ kind: 'removed', text: 'x', oldLine: 1234, newLine: null }, 4)).toBe('1234      - ');
  });
});
