/**
 * Find in a command's output (PWA-2, UX-2) over the text as a terminal shows it: a progress bar's
 * overwritten states and the escape sequences between styled words are not matched, the words
 * are. A match is reported by the byte offset of its row (and the column in it), so the viewer
 * jumps to exact bytes. Pages are read whole at multiples of the viewer's page size, so every read
 * is one the offline cache can answer (PWA-3); a line cut by a page boundary is carried over to
 * the next read, so nothing in it is missed.
 */
import { splitSourceLines } from './sourceLines';
import { renderTerminalLines, type TerminalLine } from './terminalLines';

/** Where a match is: the byte offset of its row and the column in the row's rendered text. */
export interface MatchPlace {
  offset: number;
  column: number;
}

export type ReadRange = (offset: number, length: number) => Promise<Uint8Array>;

const NEWLINE = 10;
/** A line carried over longer than this is searched as it is, so one endless line cannot grow without bound. */
const MAX_CARRY_PAGES = 4;

const compare = (a: MatchPlace, b: MatchPlace) => (a.offset === b.offset ? a.column - b.column : a.offset - b.offset);
const pageStartOf = (offset: number, pageBytes: number) => Math.floor(offset / pageBytes) * pageBytes;

function joined(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** A character a terminal acts on rather than prints, newline aside (terminalLines' controls). */
const ACTING_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** A colour or style (SGR): it prints nothing. */
const SGR = /\u001b\[[0-9;:]*m/g;

/**
 * Whether rendering `bytes` can show `needle`. Without control characters (newline aside) once
 * its colours are taken out, the rendered rows are the stored lines without them, so a page that
 * does not hold the needle is skipped without rendering: a find in a plain or coloured log costs
 * a decode and a search per page. Anything else that acts (carriage returns, cursor moves) is
 * rendered, since it can make text that the bytes do not hold in a row.
 */
function mayMatch(bytes: Uint8Array, needle: string): boolean {
  const text = new TextDecoder().decode(bytes).replace(SGR, '');
  return ACTING_CONTROL.test(text) || text.toLowerCase().includes(needle);
}

/** Every match of `needle` (lower case) in rendered lines, in order. */
function* matchesIn(lines: readonly TerminalLine[], needle: string): Generator<MatchPlace> {
  let column = 0;
  for (const [i, line] of lines.entries()) {
    const haystack = line.text.toLowerCase();
    for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1))
      yield { offset: line.offset, column: column + at };
    column = line.continues && lines[i + 1]?.offset === line.offset ? column + line.text.length : 0;
  }
}

/** Which of `matches` (in order) comes next from `here` (at it too with `inclusive`), or last before it; -1 for none. */
export function nextMatchIndex(
  matches: readonly MatchPlace[],
  here: MatchPlace,
  direction: 'next' | 'previous',
  inclusive: boolean,
): number {
  if (direction === 'next')
    return matches.findIndex((m) => compare(m, here) > 0 || (inclusive && compare(m, here) === 0));
  return matches.findLastIndex((m) => compare(m, here) < 0);
}

/** Rendered lines of whole stored lines starting at `offset` (a line start). */
const renderedLines = (bytes: Uint8Array, offset: number, unfinished: boolean) =>
  renderTerminalLines(splitSourceLines(bytes, offset, unfinished)).lines;

/**
 * Every match after `from` (at it too with `inclusive`), in order, reading pages forward; a
 * consumer that stops early reads no further page, and `signal` stops a long search.
 */
export async function* renderedMatchesAfter(
  read: ReadRange,
  totalBytes: number,
  query: string,
  from: MatchPlace,
  inclusive: boolean,
  pageBytes: number,
  signal?: AbortSignal,
): AsyncGenerator<MatchPlace> {
  const needle = query.toLowerCase();
  if (needle.length === 0) return;
  let carry: Uint8Array = new Uint8Array(0);
  for (
    let pageStart = pageStartOf(Math.max(0, from.offset), pageBytes);
    pageStart < totalBytes;
    pageStart += pageBytes
  ) {
    signal?.throwIfAborted();
    const wanted = Math.min(pageBytes, totalBytes - pageStart);
    const page = await read(pageStart, wanted);
    const last = page.length < wanted || pageStart + page.length >= totalBytes;
    // The first read begins at the row searched from, a line start.
    const fresh =
      carry.length === 0 && from.offset > pageStart
        ? page.subarray(Math.min(page.length, from.offset - pageStart))
        : page;
    const chunk = joined(carry, fresh);
    const chunkStart = pageStart + page.length - chunk.length;
    const lastNewline = chunk.lastIndexOf(NEWLINE);
    const whole = last || chunk.length > MAX_CARRY_PAGES * pageBytes ? chunk.length : lastNewline + 1;
    if (mayMatch(chunk.subarray(0, whole), needle)) {
      for (const place of matchesIn(renderedLines(chunk.subarray(0, whole), chunkStart, false), needle)) {
        const order = compare(place, from);
        if (order > 0 || (inclusive && order === 0)) yield place;
      }
    }
    if (last) break;
    carry = chunk.slice(whole);
  }
}

/** The first match after `from` (at it too with `inclusive`), reading pages forward; `signal` stops a long search. */
export async function findRenderedNext(
  read: ReadRange,
  totalBytes: number,
  query: string,
  from: MatchPlace,
  inclusive: boolean,
  pageBytes: number,
  signal?: AbortSignal,
): Promise<MatchPlace | null> {
  for await (const place of renderedMatchesAfter(read, totalBytes, query, from, inclusive, pageBytes, signal))
    return place;
  return null;
}

/** The last match before `before`, reading pages backward. */
export async function findRenderedPrevious(
  read: ReadRange,
  totalBytes: number,
  query: string,
  before: MatchPlace,
  pageBytes: number,
  signal?: AbortSignal,
): Promise<MatchPlace | null> {
  const needle = query.toLowerCase();
  if (needle.length === 0 || totalBytes === 0) return null;
  // The rest of the last line of the page being read: the start of the page after it.
  let rest: Uint8Array = new Uint8Array(0);
  for (
    let pageStart = pageStartOf(Math.min(before.offset, totalBytes - 1), pageBytes);
    pageStart >= 0;
    pageStart -= pageBytes
  ) {
    signal?.throwIfAborted();
    const page = await read(pageStart, Math.min(pageBytes, totalBytes - pageStart));
    // Lines start after the page's first newline; what is before it ends the page before's last line.
    const firstLine = pageStart === 0 ? 0 : page.indexOf(NEWLINE) + 1;
    if (firstLine === 0 && pageStart > 0 && rest.length < MAX_CARRY_PAGES * pageBytes) {
      rest = joined(page, rest);
      continue;
    }
    const chunk = joined(page.subarray(firstLine), rest);
    let found: MatchPlace | null = null;
    for (const place of matchesIn(renderedLines(chunk, pageStart + firstLine, false), needle)) {
      if (compare(place, before) < 0) found = place;
      else break;
    }
    if (found) return found;
    rest = page.slice(0, firstLine);
  }
  return null;
}
