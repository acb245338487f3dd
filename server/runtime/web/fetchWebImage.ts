import { MAX_WEB_IMAGE_BYTES, type WebImage } from '../../../lib/protocol/webPage';
import { DEFAULT_WEB_FETCH_LIMITS, fetchGuarded, type FetchPurpose, type WebFetchLimits } from './fetchWebPage';
import { webFetchError } from './webFetchError';

/** Raster formats a browser draws, by their first bytes. SVG is left out: its blob would run script on the app's origin if opened. */
const SIGNATURES: { mimeType: WebImage['mimeType']; matches(bytes: Uint8Array): boolean }[] = [
  { mimeType: 'image/png', matches: (b) => startsWith(b, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { mimeType: 'image/jpeg', matches: (b) => startsWith(b, 0, [0xff, 0xd8, 0xff]) },
  { mimeType: 'image/gif', matches: (b) => ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a') },
  { mimeType: 'image/webp', matches: (b) => ascii(b, 0, 'RIFF') && ascii(b, 8, 'WEBP') },
  { mimeType: 'image/avif', matches: (b) => ascii(b, 4, 'ftypavif') || ascii(b, 4, 'ftypavis') },
];

function startsWith(bytes: Uint8Array, at: number, expected: number[]): boolean {
  return expected.every((byte, i) => bytes[at + i] === byte);
}

function ascii(bytes: Uint8Array, at: number, text: string): boolean {
  return startsWith(
    bytes,
    at,
    [...text].map((c) => c.charCodeAt(0)),
  );
}

/** The image type its bytes say, or null for anything else (whatever the server declared). */
export function sniffImageType(bytes: Uint8Array): WebImage['mimeType'] | null {
  return SIGNATURES.find((s) => s.matches(bytes))?.mimeType ?? null;
}

const IMAGE: FetchPurpose = {
  accept: 'image/avif,image/webp,image/png,image/jpeg,image/gif;q=0.9,*/*;q=0.1',
  noun: 'image',
  checkType(mimeType) {
    if (mimeType && !mimeType.startsWith('image/'))
      throw webFetchError('not_image', `This address is not an image (${mimeType}).`, { contentType: mimeType });
  },
};

/**
 * An image of a page read as Markdown (MD-5), fetched by the desktop so the page's image hosts
 * never see the phone and the image can be kept offline: guarded like the page itself (SEC-5),
 * at most MAX_WEB_IMAGE_BYTES, and only a raster format its bytes prove, named by those bytes.
 */
export async function fetchWebImage(
  address: string,
  limits: WebFetchLimits = DEFAULT_WEB_FETCH_LIMITS,
): Promise<WebImage> {
  const { url, bytes } = await fetchGuarded(
    address,
    { ...limits, maxBytes: Math.min(limits.maxBytes, MAX_WEB_IMAGE_BYTES) },
    IMAGE,
  );
  const mimeType = sniffImageType(bytes);
  if (!mimeType)
    throw webFetchError(
      'not_image',
      'This address did not answer with an image the app shows (PNG, JPEG, GIF, WebP or AVIF).',
    );
  return {
    finalUrl: url.href,
    mimeType,
    byteCount: bytes.byteLength,
    dataBase64: Buffer.from(bytes).toString('base64'),
  };
}
