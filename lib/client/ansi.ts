/**
 * ANSI colours for the output viewer (PWA-2): SGR sequences become styled segments; every other
 * escape sequence (cursor moves, window titles, hyperlinks' framing) is dropped, so output shows
 * as text and never as control codes.
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

export interface AnsiSegment {
  text: string;
  style: AnsiStyle;
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

// CSI … final byte; OSC … BEL or ST; other two-byte escapes.
const ESCAPE = /\u001b(?:\[([0-9;:?]*)([@-~])|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-Z\\-_])/g;

/** Splits one line into styled segments, starting from `style` (the state at the line's start). */
export function parseAnsiLine(line: string, style: AnsiStyle = {}): { segments: AnsiSegment[]; style: AnsiStyle } {
  const segments: AnsiSegment[] = [];
  let current = style;
  let last = 0;
  const push = (text: string) => {
    // Other C0 controls (but tab) would render as boxes; carriage returns are dropped.
    const clean = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
    if (clean.length === 0) return;
    const previous = segments[segments.length - 1];
    if (previous && previous.style === current) previous.text += clean;
    else segments.push({ text: clean, style: current });
  };
  for (const match of line.matchAll(ESCAPE)) {
    push(line.slice(last, match.index));
    last = match.index + match[0].length;
    if (match[2] === 'm' && !match[1]!.includes('?')) {
      const params = match[1] === '' ? [] : match[1]!.split(/[;:]/).map((n) => (n === '' ? 0 : Number(n)));
      current = applySgr(current, params);
    }
  }
  push(line.slice(last));
  return { segments, style: current };
}

/** Splits lines into styled segments; a style left open at a line's end carries into the next. */
export function parseAnsiLines(lines: readonly { text: string }[]): AnsiSegment[][] {
  let style: AnsiStyle = {};
  return lines.map((line) => {
    const parsed = parseAnsiLine(line.text, style);
    style = parsed.style;
    return parsed.segments;
  });
}
