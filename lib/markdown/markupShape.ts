import { Parser } from 'htmlparser2';

/**
 * Bounds on a page before Readability reads it (SEC-9). Readability's cost grows much faster than
 * the nesting depth (400 nested elements take seconds, 2,000 take minutes), and with the element
 * count; the limits sit well above real pages (the Readability corpus nests at most 38 deep and
 * holds at most about 10,000 elements).
 */
export const MAX_PAGE_NESTING = 128;
export const MAX_PAGE_ELEMENTS = 50_000;

/** Thrown inside the pass to stop it at the first element past a bound. */
class OverBound extends Error {}

/**
 * Why a page is too complex to extract, or null when it is within the bounds: one streaming pass
 * of the parser linkedom builds its tree with (so implied end tags count as they will there),
 * nothing built. NOTE: the pass stops at the first element past a bound, because that parser's
 * own cost grows with the depth of its open-element stack; within the bounds it stays linear.
 */
export function tooComplexReason(html: string): string | null {
  let elements = 0;
  let depth = 0;
  const parser = new Parser({
    onopentag() {
      elements++;
      depth++;
      if (depth > MAX_PAGE_NESTING || elements > MAX_PAGE_ELEMENTS) throw new OverBound();
    },
    onclosetag() {
      depth--;
    },
  });
  try {
    parser.end(html);
    return null;
  } catch (error) {
    if (!(error instanceof OverBound)) throw error;
    const number = (n: number) => n.toLocaleString('en-US');
    if (depth > MAX_PAGE_NESTING) return `its elements nest more than ${number(MAX_PAGE_NESTING)} deep`;
    return `it has more than ${number(MAX_PAGE_ELEMENTS)} elements`;
  }
}
