import * as z from 'zod';
import type { TranscodeFailure } from './mediaChild';

export interface RenditionSize {
  maxWidth: number;
  maxHeight: number;
}

/** One image rendition, as the runtime hands it to the image program (its argument, as JSON). */
export const ImageJobSchema = z.strictObject({
  input: z.string(),
  output: z.string(),
  kind: z.enum(['jpeg', 'webp']),
  maxWidth: z.number().int().positive(),
  maxHeight: z.number().int().positive(),
  /** Sharp refuses images of more pixels, so a tiny file cannot ask for gigabytes (FILE-11). */
  maxPixels: z.number().int().positive(),
  timeoutMs: z.number().int().positive(),
});
export type ImageJob = z.infer<typeof ImageJobSchema>;

/** How the image program says why it failed. */
export const IMAGE_EXIT_CODES = { decodeFailed: 2, tooManyPixels: 3, timeout: 4 } as const;
export const FAILURE_OF_EXIT: Record<number, TranscodeFailure> = {
  [IMAGE_EXIT_CODES.decodeFailed]: 'decode_failed',
  [IMAGE_EXIT_CODES.tooManyPixels]: 'too_many_pixels',
  [IMAGE_EXIT_CODES.timeout]: 'timeout',
};
