/**
 * Command output rendered as a terminal shows it (UX-2, PWA-2): a carriage return goes back to the
 * start of the row, erase-line (CSI K) and cursor moves (CSI A/B/C/D/E/F/G, save and restore)
 * rewrite rows already printed, so a progress bar or a spinner collapses into its last state; SGR
 * styles and OSC 8 links become styled segments. Escape sequences are tokenized by
 * `@ansi-tools/parser`; what they do to rows is here. The output stays a log, not a screen: rows
 * are never scrolled away, and clearing the screen keeps what was printed.
 *
 * Each rendered line keeps the byte range that made it ([offset, end)), so offsets, find and copy
 * stay exact to the stored bytes however much a line was rewritten.
 */
import { parse } from '@ansi-tools/parser';
import { applySgr, sgrNumbers, type AnsiStyle } from './ansi';
import { safeTerminalUrl } from '../links/safeLinks';
import { segmentPieces, TerminalRow, type TerminalSegment } from './terminalRow';

/** One line of the stored bytes, decoded, without its newline. */
export interface SourceLine {
  offset: number;
  /** Past the line's last byte, its newline included. */
  end: number;
  text: string;
  /** The line ends with a newline (every line but a running command's last). */
  newline: boolean;
}

export interface TerminalLine {
  /** The first byte of the row in the whole output: lines are found by it (scrollPlacement). */
  offset: number;
  /** Past the last byte that wrote into the row. */
  end: number;
  text: string;
  segments: TerminalSegment[];
  /** The piece of a longer row that continues on the next line. */
  continues: boolean;
}

/** The style and link open where a rendering starts: carried across pages (useOutputWindow). */
export interface TerminalCarry {
  style: AnsiStyle;
  link?: string;
}

/** A row longer than this is shown in pieces, so one giant line cannot freeze the page. */
export const MAX_LINE_CHARS = 8192;

/** A character a terminal acts on rather than prints (C0 but tab, DEL, C1): ESC is one. */
const isControl = (code: number) => (code < 0x20 && code !== 0x09) || (code >= 0x7f && code <= 0x9f);

/** Whether a line holds any control character; a line without takes the fast path. */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (isControl(text.charCodeAt(i))) return true;
  return false;
}
const PARAM = (params: readonly string[], index: number, fallback: number) => {
  const n = Number(params[index] ?? '');
  return params[index] === undefined || params[index] === '' || !Number.isFinite(n) ? fallback : n;
};
/** An OSC string the page ended inside of (no BEL or ST yet) does nothing until it is whole. */
const terminated = (raw: string) => raw.endsWith('\u0007') || raw.endsWith('\u001b\\') || raw.endsWith('\u009c');

class Screen {
  rows: TerminalRow[] = [];
  row = 0;
  column = 0;
  style: AnsiStyle;
  link: string | undefined;
  saved: { row: number; column: number } | null = null;
  /** The line being rendered: rows it writes into end no earlier than it does. */
  line: SourceLine = { offset: 0, end: 0, text: '', newline: false };

  constructor(carry: TerminalCarry) {
    this.style = carry.style;
    this.link = carry.link;
  }

  current(): TerminalRow {
    while (this.rows.length <= this.row) this.rows.push(new TerminalRow(this.line.offset, this.line.offset));
    const row = this.rows[this.row]!;
    if (row.end < this.line.end) row.end = this.line.end;
    return row;
  }

  print(text: string): void {
    this.current().write(this.column, text, this.style, this.link);
    this.column += text.length;
  }

  moveRow(by: number): void {
    this.row = Math.max(0, this.row + by);
    this.current();
  }

  /** Plain text with control characters: each acts as a terminal's would. */
  text(raw: string): void {
    if (!hasControl(raw)) {
      this.print(raw);
      return;
    }
    let run = '';
    const flush = () => {
      if (run) this.print(run);
      run = '';
    };
    for (const char of raw) {
      if (!isControl(char.charCodeAt(0))) run += char;
      else {
        flush();
        if (char === '\r') this.column = 0;
        else if (char === '\b') this.column = Math.max(0, this.column - 1);
        else if (char === '\n') {
          this.moveRow(1);
          this.column = 0;
        }
        // Other controls (bell, shift in/out, C1) print nothing.
      }
    }
    flush();
  }

  csi(command: string, params: readonly string[], groups: readonly (readonly string[])[] | undefined): void {
    const n = PARAM(params, 0, 1) || 1;
    switch (command) {
      case 'm':
        this.style = applySgr(this.style, sgrNumbers(params, groups));
        break;
      case 'K':
        this.current().erase(PARAM(params, 0, 0), this.column);
        break;
      case 'J':
        // Erase below the cursor: the rows under it are emptied; erasing the whole screen keeps the log.
        if (PARAM(params, 0, 0) === 0) {
          this.current().erase(0, this.column);
          for (let i = this.row + 1; i < this.rows.length; i++) this.rows[i]!.erase(2, 0);
        }
        break;
      case 'A':
        this.moveRow(-n);
        break;
      case 'B':
        this.moveRow(n);
        break;
      case 'E':
      case 'F':
        this.moveRow(command === 'E' ? n : -n);
        this.column = 0;
        break;
      case 'C':
        this.column += n;
        break;
      case 'D':
        this.column = Math.max(0, this.column - n);
        break;
      case 'G':
        this.column = n - 1;
        break;
      case 'H':
      case 'f':
        // A log has no screen to place rows on: only the column of a cursor position counts.
        this.column = Math.max(0, PARAM(params, 1, 1) - 1);
        break;
      case 's':
        this.saved = { row: this.row, column: this.column };
        break;
      case 'u':
        this.restore();
        break;
    }
  }

  esc(command: string): void {
    if (command === '7') this.saved = { row: this.row, column: this.column };
    else if (command === '8') this.restore();
    else if (command === 'M') this.moveRow(-1);
    else if (command === 'D') this.moveRow(1);
    else if (command === 'E') {
      this.moveRow(1);
      this.column = 0;
    } else if (command === 'c') {
      this.style = {};
      this.link = undefined;
    }
  }

  osc(command: string, params: readonly string[], raw: string): void {
    if (command !== '8' || !terminated(raw)) return;
    const url = params.slice(1).join(';');
    this.link = url === '' ? undefined : (safeTerminalUrl(url) ?? undefined);
  }

  private restore(): void {
    if (!this.saved) return;
    this.row = Math.min(this.saved.row, this.rows.length);
    this.column = this.saved.column;
  }

  /** One stored line: its text and escapes, then its newline. */
  render(line: SourceLine): void {
    this.line = line;
    if (!hasControl(line.text)) this.print(line.text);
    else {
      for (const code of parse(line.text)) {
        if (code.type === 'TEXT') this.text(code.raw);
        else if (code.type === 'CSI' || code.type === 'SGR') this.csi(code.command, code.params, code.parameterGroups);
        else if (code.type === 'ESC') this.esc(code.command);
        else if (code.type === 'OSC') this.osc(code.command, code.params, code.raw);
      }
    }
    this.current();
    if (line.newline) {
      this.row++;
      this.column = 0;
      // The next row begins after this newline, even if no line writes into it.
      this.line = { offset: line.end, end: line.end, text: '', newline: false };
    }
  }
}

/**
 * Renders stored lines as terminal rows, from the style and link open at the first one. Returns
 * the lines, what is open after the last, and what was open at the first line starting at or
 * after each of `carryOffsets` (ascending), to carry into later renderings.
 */
export function renderTerminalLines(
  source: readonly SourceLine[],
  carry: TerminalCarry = { style: {} },
  carryOffsets: readonly number[] = [],
): { lines: TerminalLine[]; carry: TerminalCarry; carriesAt: TerminalCarry[] } {
  const screen = new Screen(carry);
  const carriesAt: TerminalCarry[] = [];
  for (const line of source) {
    while (carriesAt.length < carryOffsets.length && carryOffsets[carriesAt.length]! <= line.offset)
      carriesAt.push({ style: screen.style, link: screen.link });
    screen.render(line);
  }
  const lines: TerminalLine[] = [];
  for (const row of screen.rows) {
    const pieces = segmentPieces(row.segments, row.length, MAX_LINE_CHARS);
    pieces.forEach((segments, i) => {
      lines.push({
        offset: row.offset,
        end: row.end,
        text: segments.map((s) => s.text).join(''),
        segments,
        continues: i < pieces.length - 1,
      });
    });
  }
  return { lines, carry: { style: screen.style, link: screen.link }, carriesAt };
}

/** The rendered text of lines, as a terminal would show it: a long row's pieces joined again. */
export const renderedText = (lines: readonly TerminalLine[]) =>
  lines.map((line) => line.text + (line.continues ? '' : '\n')).join('');
