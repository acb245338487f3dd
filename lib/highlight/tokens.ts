import { z } from 'zod';

const ColourSchema = z
  .string()
  .regex(/^#[0-9a-fA-F]{3,8}$/)
  .or(z.literal(''));

/**
 * One token as a view renders it: text, colour (`#rrggbb`, '' for the default foreground) and
 * Shiki's font style bits (1 italic, 2 bold, 4 underline, 8 strikethrough).
 */
const HighlightTokenSchema = z.tuple([z.string(), ColourSchema, z.number().int().min(0).max(15)]);

export const TokenLineSchema = z.array(HighlightTokenSchema);
export type TokenLine = z.infer<typeof TokenLineSchema>;

/** Bits of a token's style word: palette index below, font style above. */
const PALETTE_BITS = 12;
const MAX_PALETTE = 1 << PALETTE_BITS;

/**
 * A batch of consecutive lines of one document (HL-2), packed so that checking it at the worker
 * edge and taking it in costs the page a few typed-array passes, not an object per token: the
 * page already holds the text, so a token is its end offset in its line and a style word.
 */
export const TokenBatchSchema = z
  .object({
    firstLine: z.number().int().nonnegative(),
    lineCount: z.number().int().nonnegative(),
    /** No lines follow. */
    done: z.boolean(),
    /** Colours of this batch; a style word's low 12 bits index it. */
    palette: z.array(ColourSchema).max(MAX_PALETTE),
    /** lineCount + 1 entries: line i's tokens are [lineTokenStarts[i], lineTokenStarts[i + 1]). */
    lineTokenStarts: z.instanceof(Uint32Array),
    /** Per token: where it ends in its line (exclusive). */
    tokenEnds: z.instanceof(Uint32Array),
    /** Per token: palette index | font style << 12. */
    tokenStyles: z.instanceof(Uint16Array),
  })
  .superRefine((batch, ctx) => {
    const starts = batch.lineTokenStarts;
    const tokens = batch.tokenEnds.length;
    let consistent =
      starts.length === batch.lineCount + 1 &&
      starts[0] === 0 &&
      starts[batch.lineCount] === tokens &&
      batch.tokenStyles.length === tokens;
    for (let i = 1; consistent && i < starts.length; i++) consistent = starts[i]! >= starts[i - 1]!;
    for (let t = 0; consistent && t < tokens; t++)
      consistent = (batch.tokenStyles[t]! & (MAX_PALETTE - 1)) < batch.palette.length;
    if (!consistent) ctx.addIssue({ code: 'custom', message: 'a token batch whose offsets or styles do not add up' });
  });
export type TokenBatch = z.infer<typeof TokenBatchSchema>;

/** Packs tokenized lines into a batch (the worker side). */
export function packTokenBatch(firstLine: number, lines: TokenLine[], done: boolean): TokenBatch {
  const palette: string[] = [''];
  const paletteIndex = new Map<string, number>([['', 0]]);
  const tokenCount = lines.reduce((sum, line) => sum + line.length, 0);
  const lineTokenStarts = new Uint32Array(lines.length + 1);
  const tokenEnds = new Uint32Array(tokenCount);
  const tokenStyles = new Uint16Array(tokenCount);
  let t = 0;
  lines.forEach((line, i) => {
    lineTokenStarts[i] = t;
    let end = 0;
    for (const [text, colour, fontStyle] of line) {
      let index = paletteIndex.get(colour);
      if (index === undefined) {
        // NOTE: a theme has a few dozen colours; past the palette's room a colour falls back to the default.
        index = palette.length < MAX_PALETTE ? palette.push(colour) - 1 : 0;
        paletteIndex.set(colour, index);
      }
      end += text.length;
      tokenEnds[t] = end;
      tokenStyles[t] = index | (fontStyle << PALETTE_BITS);
      t++;
    }
  });
  lineTokenStarts[lines.length] = t;
  return { firstLine, lineCount: lines.length, done, palette, lineTokenStarts, tokenEnds, tokenStyles };
}

/** The tokens of one line of a batch, cut from the line's own text (the page side, visible lines only). */
export function unpackLine(batch: TokenBatch, lineIndex: number, text: string): TokenLine {
  const at = lineIndex - batch.firstLine;
  const tokens: TokenLine = [];
  let start = 0;
  for (let t = batch.lineTokenStarts[at]!; t < batch.lineTokenStarts[at + 1]!; t++) {
    const end = batch.tokenEnds[t]!;
    const style = batch.tokenStyles[t]!;
    tokens.push([text.slice(start, end), batch.palette[style & (MAX_PALETTE - 1)]!, style >> PALETTE_BITS]);
    start = end;
  }
  if (start < text.length) tokens.push([text.slice(start), '', 0]);
  return tokens;
}

/** Shiki's underline and strikethrough bits: the only font styles that show on blanks. */
export const DECORATION_BITS = 4 | 8;
const BLANK = /^\s*$/;

/**
 * A line's tokens as the view draws them: blanks without a decoration take the default look
 * (their colour does not show), and neighbours of the same look are joined, so a line needs an
 * element only per run of one colour (PERF-6). The text and each visible character's look are
 * unchanged.
 */
export function styledRuns(tokens: TokenLine): TokenLine {
  const runs: TokenLine = [];
  for (const [text, colour, fontStyle] of tokens) {
    if (!text) continue;
    const plain = BLANK.test(text) && (fontStyle & DECORATION_BITS) === 0;
    const look: [string, number] = plain ? ['', 0] : [colour, fontStyle];
    const last = runs[runs.length - 1];
    if (last && last[1] === look[0] && last[2] === look[1]) last[0] += text;
    else runs.push([text, look[0], look[1]]);
  }
  return runs;
}

export const ThemeColorsSchema = z.object({ foreground: z.string(), background: z.string() });
export type ThemeColors = z.infer<typeof ThemeColorsSchema>;

export type ThemeName = 'light' | 'dark';
