import sharp from 'sharp';
import type { RenditionKind } from '../../../lib/protocol/files';

export interface RenditionSize {
  maxWidth: number;
  maxHeight: number;
}

/** Sharp's own refusal of images over this many pixels (about 16384 × 16384), so a tiny file cannot ask for gigabytes. */
const MAX_INPUT_PIXELS = 268_402_689;

/**
 * An image rendition (FILE-10): decoded by libvips through sharp, turned upright by its EXIF
 * orientation, fitted inside the box (never enlarged) and saved as JPEG or WebP. Libvips works on
 * its own threads, so the event loop stays free meanwhile.
 */
export async function makeImageRendition(input: string, output: string, kind: RenditionKind, size: RenditionSize, timeoutMs: number): Promise<void> {
  const pipeline = sharp(input, { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS, sequentialRead: true })
    .rotate()
    .resize({ width: size.maxWidth, height: size.maxHeight, fit: 'inside', withoutEnlargement: true })
    .timeout({ seconds: Math.max(1, Math.ceil(timeoutMs / 1000)) });
  const encoded = kind === 'jpeg' ? pipeline.jpeg({ quality: 82, mozjpeg: true }) : pipeline.webp({ quality: 80 });
  await encoded.toFile(output);
}

/** Whether sharp stopped because its time was up, not because the image is bad. */
export function isSharpTimeout(error: unknown): boolean {
  return error instanceof Error && /timeout/i.test(error.message);
}
