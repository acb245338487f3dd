import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WEB_IMAGE_BYTES } from '../../../lib/protocol/webPage';
import { RuntimeError } from '../../../server/runtime/errors';
import { fetchWebImage } from '../../../server/runtime/web/fetchWebImage';
import { DEFAULT_WEB_FETCH_LIMITS, PRIVATE_FETCH_LIMITS } from '../../../server/runtime/web/fetchWebPage';
import { redirectTo, startTestWebServer, type TestWebServer } from '../../fixtures/testWebServer';

// MD-5: the reader's images fetched by the desktop, against real servers on 127.0.0.1 reached
// with the opt-in for local servers (SEC-5), and refused without it.

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const GIF = Buffer.from('R0lGODlhAQABAAAAACw=', 'base64');
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

let server: TestWebServer;

beforeAll(async () => {
  server = await startTestWebServer({
    '/dot.png': (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(PNG),
    // The header lies: the bytes decide.
    '/dot-declared-jpeg': (_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(GIF),
    '/no-type': (_req, res) => res.writeHead(200).end(PNG),
    '/moved': redirectTo('/dot.png'),
    '/drawing.svg': (_req, res) => res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(SVG),
    '/page': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>hi</p>'),
    '/fake.png': (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end('not an image at all'),
    '/huge.png': (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      const chunk = Buffer.alloc(256 * 1024);
      const pump = () => {
        while (!res.destroyed) {
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      pump();
    },
  });
});
afterAll(() => server?.close());

async function refusal(address: string, limits = PRIVATE_FETCH_LIMITS): Promise<RuntimeError> {
  const error = await fetchWebImage(address, limits).then(
    (image) => new Error(`fetched ${image.mimeType}`),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RuntimeError);
  return error as RuntimeError;
}

describe("MD-5 the reader's images through the desktop", () => {
  it('MD-5 an image is answered with its bytes and the type its bytes prove, after redirects and without a declared type', async () => {
    const image = await fetchWebImage(`${server.origin}/dot.png`, PRIVATE_FETCH_LIMITS);
    expect(image).toMatchObject({ finalUrl: `${server.origin}/dot.png`, mimeType: 'image/png', byteCount: PNG.length });
    expect(Buffer.from(image.dataBase64, 'base64').equals(PNG)).toBe(true);
    expect((await fetchWebImage(`${server.origin}/moved`, PRIVATE_FETCH_LIMITS)).finalUrl).toBe(
      `${server.origin}/dot.png`,
    );
    expect((await fetchWebImage(`${server.origin}/no-type`, PRIVATE_FETCH_LIMITS)).mimeType).toBe('image/png');
    expect((await fetchWebImage(`${server.origin}/dot-declared-jpeg`, PRIVATE_FETCH_LIMITS)).mimeType).toBe(
      'image/gif',
    );
  });

  it('MD-5 SVG, a page, bytes that are no image and an oversized image are refused with their reason; SEC-5 a private address without the opt-in too', async () => {
    for (const path of ['/drawing.svg', '/fake.png'])
      expect((await refusal(`${server.origin}${path}`)).data).toMatchObject({ reason: 'not_image' });
    expect((await refusal(`${server.origin}/page`)).data).toMatchObject({
      reason: 'not_image',
      contentType: 'text/html',
    });
    const huge = await refusal(`${server.origin}/huge.png`);
    expect(huge.data).toMatchObject({ reason: 'too_large', maxBytes: MAX_WEB_IMAGE_BYTES });
    expect(huge.message).toBe('The image is larger than 8 MiB.');
    expect((await refusal(`${server.origin}/dot.png`, DEFAULT_WEB_FETCH_LIMITS)).data).toMatchObject({
      reason: 'blocked_address',
    });
    expect((await refusal('javascript:alert(1)')).data).toMatchObject({ reason: 'unsupported_scheme' });
  });
});
