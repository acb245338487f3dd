/**
 * One row of the output as a terminal shows it (UX-2): styled segments that a carriage return,
 * an erase or a cursor move can overwrite in place, and the stored bytes that made it.
 */
import type { AnsiStyle } from './ansi';

export interface TerminalSegment {
  text: string;
  style: AnsiStyle;
  /** An OSC 8 hyperlink's address, already checked as safe. */
  link?: string;
}

const NO_STYLE: AnsiStyle = {};
const sameLook = (a: TerminalSegment, style: AnsiStyle, link: string | undefined) =>
  a.style === style && a.link === link;

/** The segments covering columns [from, to) of `segments`. */
function sliceSegments(segments: readonly TerminalSegment[], from: number, to: number): TerminalSegment[] {
  const out: TerminalSegment[] = [];
  let at = 0;
  for (const segment of segments) {
    const start = at;
    const end = at + segment.text.length;
    at = end;
    if (end <= from) continue;
    if (start >= to) break;
    if (start >= from && end <= to) out.push(segment);
    else
      out.push({
        ...segment,
        text: segment.text.slice(Math.max(0, from - start), Math.min(segment.text.length, to - start)),
      });
  }
  return out;
}

export class TerminalRow {
  segments: TerminalSegment[] = [];
  length = 0;

  constructor(
    /** The byte where the row began: rows begin in order, so offsets never go down (PWA-2). */
    readonly offset: number,
    /** Just past the last byte that wrote into it (cursor moves can come back to a row later). */
    public end: number,
  ) {}

  /** Writes `text` from `column`, padding with spaces before it and overwriting what was there. */
  write(column: number, text: string, style: AnsiStyle, link: string | undefined): void {
    if (text.length === 0) return;
    if (column > this.length) this.append(' '.repeat(column - this.length), NO_STYLE, undefined);
    if (column === this.length) {
      this.append(text, style, link);
      return;
    }
    const after = sliceSegments(this.segments, column + text.length, this.length);
    this.segments = sliceSegments(this.segments, 0, column);
    this.length = column;
    this.append(text, style, link);
    for (const segment of after) this.append(segment.text, segment.style, segment.link);
  }

  /** Erase in line (CSI K): 0 from the column to the end, 1 from the start through the column, 2 all. */
  erase(mode: number, column: number): void {
    if (mode === 2) {
      this.segments = [];
      this.length = 0;
    } else if (mode === 1) {
      this.write(0, ' '.repeat(Math.min(column + 1, this.length)), NO_STYLE, undefined);
    } else if (column < this.length) {
      this.segments = sliceSegments(this.segments, 0, column);
      this.length = column;
    }
  }

  get text(): string {
    return this.segments.map((segment) => segment.text).join('');
  }

  private append(text: string, style: AnsiStyle, link: string | undefined): void {
    const last = this.segments[this.segments.length - 1];
    if (last && sameLook(last, style, link))
      this.segments[this.segments.length - 1] = { ...last, text: last.text + text };
    else this.segments.push(link === undefined ? { text, style } : { text, style, link });
    this.length += text.length;
  }
}

/** A row's segments cut into pieces of at most `maxChars` characters. */
export function segmentPieces(
  segments: readonly TerminalSegment[],
  length: number,
  maxChars: number,
): TerminalSegment[][] {
  if (length <= maxChars) return [segments.slice()];
  const pieces: TerminalSegment[][] = [];
  for (let from = 0; from < length; from += maxChars) pieces.push(sliceSegments(segments, from, from + maxChars));
  return pieces;
}
