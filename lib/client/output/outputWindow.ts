/**
 * The part of a huge command output a viewer holds (PWA-2): a run of consecutive pages of at
 * most 256 KiB, cut into lines at line ends. A viewer of a 10 GiB output never holds more than
 * a few pages: scrolling past either edge adds the next page and drops the farthest one, and a
 * jump (start, end, a position on the scrubber) starts a new window there. Byte offsets, not
 * line numbers, are the coordinates: nobody knows how many lines 10 GiB hold until it was read.
 */
import { splitSourceLines } from '../../terminal/sourceLines';
import { renderedText, renderTerminalLines, type TerminalCarry, type TerminalLine } from '../../terminal/terminalLines';

export const PAGE_BYTES = 256 * 1024;
export { MAX_LINE_CHARS } from '../../terminal/terminalLines';

/** A line of the window as shown: a terminal row with the byte range that made it (UX-2). */
export type OutputLine = TerminalLine;

interface Page {
  offset: number;
  bytes: Uint8Array;
}

const NEWLINE = 10;

/** The page-aligned offset of the page holding `offset`. */
export const pageStart = (offset: number) => Math.floor(offset / PAGE_BYTES) * PAGE_BYTES;

/** `offset` moved inside an output of `totalBytes` (onto its last byte at most). */
export const clampToOutput = (offset: number, totalBytes: number) =>
  Math.min(Math.max(0, offset), Math.max(0, totalBytes - 1));

/** The lines as the text a terminal shows: a long line's pieces joined again. */
export const linesAsText = renderedText;

export class OutputWindow {
  private pages: Page[] = [];
  private cachedLines: { complete: boolean; lines: OutputLine[] } | null = null;
  /**
   * The style and link open at the first line start of each page, learnt while rendering from
   * before it: a window that later starts there renders that page as it looked (UX-2).
   */
  private readonly carries = new Map<number, TerminalCarry>();
  private joinedBytes: Uint8Array | null = null;

  constructor(
    /** Bytes in the output now (grows while the command runs). */
    public totalBytes: number,
    private readonly maxPages = 4,
  ) {}

  get start(): number {
    return this.pages[0]?.offset ?? 0;
  }

  get end(): number {
    const last = this.pages[this.pages.length - 1];
    return last ? last.offset + last.bytes.length : 0;
  }

  get empty(): boolean {
    return this.pages.length === 0;
  }

  get atStart(): boolean {
    return !this.empty && this.start === 0;
  }

  get atEnd(): boolean {
    return !this.empty && this.end >= this.totalBytes;
  }

  /** Whether the window holds the byte at `offset`. */
  holds(offset: number): boolean {
    return !this.empty && offset >= this.start && offset < this.end;
  }

  /** The range to read to start a window around `offset` (a jump). */
  static pageAround(offset: number, totalBytes: number): { offset: number; length: number } {
    const start = pageStart(clampToOutput(offset, totalBytes));
    return { offset: start, length: Math.max(1, Math.min(PAGE_BYTES, totalBytes - start)) };
  }

  /** The next range to read after the window, or null at the end. */
  nextRange(): { offset: number; length: number } | null {
    if (this.empty || this.end >= this.totalBytes) return null;
    return { offset: this.end, length: Math.min(PAGE_BYTES, this.totalBytes - this.end) };
  }

  /** The range to read before the window, or null at the start. */
  previousRange(): { offset: number; length: number } | null {
    if (this.empty || this.start === 0) return null;
    const offset = Math.max(0, pageStart(this.start - 1));
    return { offset, length: this.start - offset };
  }

  /** Replaces the window with one page (after a jump). */
  reset(offset: number, bytes: Uint8Array): void {
    this.pages = [{ offset, bytes }];
    this.cachedLines = null;
    this.joinedBytes = null;
  }

  /**
   * Adds a page that touches the window at either edge. Returns which side was dropped to stay
   * within `maxPages`, so the viewer can keep the visible line still.
   */
  add(offset: number, bytes: Uint8Array): 'none' | 'dropped-start' | 'dropped-end' | 'ignored' {
    if (this.empty) {
      this.reset(offset, bytes);
      return 'none';
    }
    this.cachedLines = null;
    this.joinedBytes = null;
    if (offset === this.end) {
      const last = this.pages[this.pages.length - 1]!;
      // A short last page of a running command is extended, not duplicated.
      if (last.bytes.length < PAGE_BYTES && last.offset + last.bytes.length === offset) {
        const merged = new Uint8Array(last.bytes.length + bytes.length);
        merged.set(last.bytes);
        merged.set(bytes, last.bytes.length);
        this.pages[this.pages.length - 1] = { offset: last.offset, bytes: merged };
      } else {
        this.pages.push({ offset, bytes });
      }
      if (this.pages.length > this.maxPages) {
        this.pages.shift();
        return 'dropped-start';
      }
      return 'none';
    }
    if (offset + bytes.length === this.start) {
      this.pages.unshift({ offset, bytes });
      if (this.pages.length > this.maxPages) {
        this.pages.pop();
        return 'dropped-end';
      }
      return 'none';
    }
    return 'ignored';
  }

  /**
   * The window's lines, rendered as a terminal shows them. A window that does not start at byte 0
   * begins at its first line start (the line cut by the page boundary belongs to the page
   * before); a window that does not reach the bytes known so far ends at its last newline, because
   * the rest of that line is on the next page. A running command's last, unfinished line shows
   * (a progress bar lives there), without a UTF-8 character cut by the end. Offsets are exact, so
   * a place survives pages coming and going.
   */
  lines(complete: boolean): OutputLine[] {
    if (this.cachedLines?.complete === complete) return this.cachedLines.lines;
    const bytes = this.joined();
    let from = 0;
    if (this.start > 0) {
      const firstNewline = bytes.indexOf(NEWLINE);
      // One line longer than the whole window: show it from here rather than nothing.
      if (firstNewline !== -1 && firstNewline < bytes.length - 1) from = firstNewline + 1;
    }
    let to = bytes.length;
    if (this.end < this.totalBytes) {
      const lastNewline = bytes.lastIndexOf(NEWLINE);
      if (lastNewline >= from) to = lastNewline + 1;
    }
    const source = splitSourceLines(
      bytes.subarray(from, to),
      this.start + from,
      !complete || this.end < this.totalBytes,
    );
    const anchored = this.start === 0 || this.carries.has(this.start);
    const pageStarts: number[] = [];
    for (const page of this.pages) if (page.offset > this.start) pageStarts.push(page.offset);
    const rendered = renderTerminalLines(source, this.carries.get(this.start), pageStarts);
    rendered.carriesAt.forEach((carry, i) => {
      if (anchored || !this.carries.has(pageStarts[i]!)) this.carries.set(pageStarts[i]!, carry);
    });
    this.cachedLines = { complete, lines: rendered.lines };
    return rendered.lines;
  }

  /** The stored bytes in [from, to), if the window holds them all (Copy, UX-2). */
  bytesBetween(from: number, to: number): Uint8Array | null {
    if (this.empty || from < this.start || to > this.end || to < from) return null;
    return this.joined().subarray(from - this.start, to - this.start);
  }

  private joined(): Uint8Array {
    if (this.pages.length === 1) return this.pages[0]!.bytes;
    if (this.joinedBytes?.length === this.end - this.start) return this.joinedBytes;
    const out = new Uint8Array(this.end - this.start);
    for (const page of this.pages) out.set(page.bytes, page.offset - this.start);
    this.joinedBytes = out;
    return out;
  }
}
