/**
 * ANSI colours for the output viewer (PWA-2): what an SGR sequence does to a style. Sequences are
 * found by the terminal renderer (lib/terminal/terminalLines.ts); colours are CSS custom
 * properties so light and dark themes tune them.
 */

export interface AnsiStyle {
  fg?: string;
  bg?: string;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
  inverse?: boolean;
}

/** The 16 basic colours as CSS custom properties, so light and dark themes can tune them. */
const BASIC = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'];
const basic = (index: number, bright: boolean) => `var(--ansi-${bright ? 'bright-' : ''}${BASIC[index]})`;

function xterm256(n: number): string | undefined {
  if (!Number.isInteger(n) || n < 0 || n > 255) return undefined;
  if (n < 16) return basic(n % 8, n >= 8);
  if (n >= 232) {
    const level = 8 + (n - 232) * 10;
    return `rgb(${level},${level},${level})`;
  }
  const i = n - 16;
  const steps = [0, 95, 135, 175, 215, 255];
  return `rgb(${steps[Math.floor(i / 36)]},${steps[Math.floor(i / 6) % 6]},${steps[i % 6]})`;
}

/** Applies one SGR parameter list to a style; returns the new style. */
export function applySgr(style: AnsiStyle, params: number[]): AnsiStyle {
  let next: AnsiStyle = { ...style };
  const list = params.length === 0 ? [0] : params;
  for (let i = 0; i < list.length; i++) {
    const p = list[i]!;
    if (p === 0) next = {};
    else if (p === 1) next.bold = true;
    else if (p === 2) next.dim = true;
    else if (p === 3) next.italic = true;
    else if (p === 4) next.underline = true;
    else if (p === 7) next.inverse = true;
    else if (p === 22) next.bold = next.dim = undefined;
    else if (p === 23) next.italic = undefined;
    else if (p === 24) next.underline = undefined;
    else if (p === 27) next.inverse = undefined;
    else if (p >= 30 && p <= 37) next.fg = basic(p - 30, false);
    else if (p >= 90 && p <= 97) next.fg = basic(p - 90, true);
    else if (p >= 40 && p <= 47) next.bg = basic(p - 40, false);
    else if (p >= 100 && p <= 107) next.bg = basic(p - 100, true);
    else if (p === 39) next.fg = undefined;
    else if (p === 49) next.bg = undefined;
    else if (p === 38 || p === 48) {
      let colour: string | undefined;
      if (list[i + 1] === 5) {
        colour = xterm256(list[i + 2] ?? -1);
        i += 2;
      } else if (list[i + 1] === 2) {
        const [r, g, b] = [list[i + 2], list[i + 3], list[i + 4]];
        if ([r, g, b].every((c) => c !== undefined && c >= 0 && c <= 255)) colour = `rgb(${r},${g},${b})`;
        i += 4;
      }
      if (p === 38) next.fg = colour;
      else next.bg = colour;
    }
  }
  for (const key of Object.keys(next) as (keyof AnsiStyle)[]) if (next[key] === undefined) delete next[key];
  return next;
}

/**
 * The numbers of one SGR sequence from the parser's parameter groups: `38;5;n` and `38:5:n` alike,
 * and `38:2:cs:r:g:b` without its colour space id; a sub-parameter like `4:3` (curly underline)
 * counts as its main one.
 */
export function sgrNumbers(params: readonly string[], groups: readonly (readonly string[])[] | undefined): number[] {
  const toNumber = (n: string | undefined) => (n === undefined || n === '' ? 0 : Number(n));
  if (!groups) return params.map(toNumber);
  const numbers: number[] = [];
  for (const group of groups) {
    const [main, ...subs] = group.map(toNumber);
    if (main === undefined) continue;
    if ((main === 38 || main === 48) && subs.length > 0) {
      const rgb = subs[0] === 2 && subs.length === 5 ? subs.slice(2) : subs.slice(1);
      numbers.push(main, subs[0]!, ...rgb);
    } else numbers.push(main);
  }
  return numbers;
}
