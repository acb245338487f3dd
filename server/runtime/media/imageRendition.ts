import sharp from 'sharp';
import type { ImageJob } from './imageJob';

/**
 * An image rendition (FILE-10), run inside the image program: decoded by libvips through sharp,
 * turned upright by its EXIF orientation, fitted inside the box (never enlarged) and saved as JPEG
 * or WebP.
 */
export async function makeImageRendition(job: ImageJob): Promise<void> {
  const pipeline = sharp(job.input, { failOn: 'error', limitInputPixels: job.maxPixels, sequentialRead: true })
    .rotate()
    .resize({ width: job.maxWidth, height: job.maxHeight, fit: 'inside', withoutEnlargement: true })
    .timeout({ seconds: Math.max(1, Math.ceil(job.timeoutMs / 1000)) });
  const encoded = job.kind === 'jpeg' ? pipeline.jpeg({ quality: 82, mozjpeg: true }) : pipeline.webp({ quality: 80 });
  await encoded.toFile(job.output);
}
