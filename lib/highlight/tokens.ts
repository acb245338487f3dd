import { z } from 'zod';

/**
 * One token as it crosses the worker boundary: text, colour (`#rrggbb`, absent for the default
 * foreground) and Shiki's font style bits (1 italic, 2 bold, 4 underline, 8 strikethrough).
 */
export const HighlightTokenSchema = z.tuple([z.string(), z.string().regex(/^#[0-9a-fA-F]{3,8}$/).or(z.literal('')), z.number().int().min(0).max(15)]);
export type HighlightToken = z.infer<typeof HighlightTokenSchema>;

export const TokenLineSchema = z.array(HighlightTokenSchema);
export type TokenLine = z.infer<typeof TokenLineSchema>;

/** A batch of consecutive lines of one document (HL-2: the first batch is small, then the rest). */
export const TokenBatchSchema = z.object({
  firstLine: z.number().int().nonnegative(),
  lines: z.array(TokenLineSchema),
  /** No lines follow. */
  done: z.boolean(),
});
export type TokenBatch = z.infer<typeof TokenBatchSchema>;

export const ThemeColorsSchema = z.object({ foreground: z.string(), background: z.string() });
export type ThemeColors = z.infer<typeof ThemeColorsSchema>;

export const ThemeNameSchema = z.enum(['light', 'dark']);
export type ThemeName = z.infer<typeof ThemeNameSchema>;
