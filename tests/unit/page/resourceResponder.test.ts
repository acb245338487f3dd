import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  answerPreviewRequest,
  ResourceMissingError,
  type ResourceSource,
} from '../../../lib/client/preview/resourceResponder';
import { ResponsePartSchema, type PreviewRequest, type ResponsePart } from '../../../lib/protocol/previewBridge';
import type { ChunkHeader, ReadChunk } from '../../../lib/client/verifiedChunks';

const CHUNK = 1000;

/** Files served in verified chunks of CHUNK bytes from any offset, like the runtime does; records each read offset. */
function source(files: Record<string, { bytes: Uint8Array; mimeType: string }>, reads: number[]): ResourceSource {
  return {
    read(path): ReadChunk {
      return async (offset) => {
        const file = files[path];
        if (!file) throw new ResourceMissingError();
        reads.push(offset);
        const data = file.bytes.subarray(offset, Math.min(offset + CHUNK, file.bytes.length));
        const end = offset + data.length;
        const header: ChunkHeader = {
          offset,
          nextOffset: end >= file.bytes.length ? null : end,
          byteCount: data.length,
          size: file.bytes.length,
          contentVersion: 'v1',
          modifiedAt: 0,
          mimeType: file.mimeType,
          sha256: crypto.createHash('sha256').update(data).digest('hex'),
        };
        return { header, data };
      };
    },
    decoration: () => ({ theme: { '--hb-bg': '#fff' }, navigationScript: 'NAV()' }),
  };
}

/** Plays the service worker's side: reads the head, then pulls until the end. */
async function request(src: ResourceSource, path: string, method: 'GET' | 'HEAD' = 'GET', range: string | null = null) {
  const channel = new MessageChannel();
  const parts: ResponsePart[] = [];
  let wake: (() => void) | null = null;
  channel.port1.onmessage = (event: MessageEvent) => {
    parts.push(ResponsePartSchema.parse(event.data));
    wake?.();
  };
  const next = async (): Promise<ResponsePart> => {
    while (parts.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    return parts.shift()!;
  };
  const message: PreviewRequest = { type: 'hbcode.preview.request', method, path, range };
  void answerPreviewRequest(message, channel.port2, path, src);
  const head = await next();
  if (head.type !== 'head') throw new Error(`expected a head, got ${JSON.stringify(head)}`);
  const body: Uint8Array[] = [];
  for (;;) {
    channel.port1.postMessage({ type: 'pull' });
    const part = await next();
    if (part.type === 'end') break;
    if (part.type !== 'body') throw new Error(`unexpected ${JSON.stringify(part)}`);
    body.push(new Uint8Array(part.bytes));
  }
  channel.port1.close();
  return { status: head.status, headers: head.headers, body: Buffer.concat(body) };
}

describe('PRV-3 PRV-4 the app answers a previewed page request from verified chunks', () => {
  const video = new Uint8Array(crypto.randomBytes(10_500));
  const files = {
    '/v.webm': { bytes: video, mimeType: 'video/webm' },
    '/a.html': { bytes: new TextEncoder().encode('<html><head></head><body>é</body></html>'), mimeType: 'text/html' },
  };

  it('PRV-3 a whole file streams with its length and type', async () => {
    const answer = await request(source(files, []), '/v.webm');
    expect(answer.status).toBe(200);
    expect(answer.headers).toMatchObject({
      'content-type': 'video/webm',
      'content-length': String(video.length),
      'accept-ranges': 'bytes',
    });
    expect(answer.body.equals(video)).toBe(true);
  });

  it('PRV-3 a Range read starts at its first byte (no reading from the start) and answers 206', async () => {
    const reads: number[] = [];
    const answer = await request(source(files, reads), '/v.webm', 'GET', 'bytes=7500-8200');
    expect(answer.status).toBe(206);
    expect(answer.headers).toMatchObject({
      'content-range': `bytes 7500-8200/${video.length}`,
      'content-length': '701',
    });
    expect(answer.body.equals(video.subarray(7500, 8201))).toBe(true);
    expect(Math.min(...reads)).toBe(7500);
  });

  it('PRV-3 a suffix range, a range past the end (416), HEAD and a missing file (404)', async () => {
    const suffix = await request(source(files, []), '/v.webm', 'GET', 'bytes=-100');
    expect(suffix).toMatchObject({
      status: 206,
      headers: { 'content-range': `bytes ${video.length - 100}-${video.length - 1}/${video.length}` },
    });
    expect(suffix.body.equals(video.subarray(-100))).toBe(true);
    const past = await request(source(files, []), '/v.webm', 'GET', `bytes=${video.length}-`);
    expect(past).toMatchObject({ status: 416, headers: { 'content-range': `bytes */${video.length}` } });
    const head = await request(source(files, []), '/v.webm', 'HEAD');
    expect(head).toMatchObject({ status: 200, headers: { 'content-length': String(video.length) } });
    expect(head.body.length).toBe(0);
    expect((await request(source(files, []), '/none.js')).status).toBe(404);
  });

  it('PRV-4 HTML is answered whole and decorated, with its charset, whatever range was asked', async () => {
    const answer = await request(source(files, []), '/a.html', 'GET', 'bytes=5-');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(answer.body.toString('utf8')).toBe(
      '<html><head><style id="hb-theme">:root{--hb-bg:#fff}</style></head><body>é</body></html><script>NAV()</script>',
    );
    expect(answer.headers['content-length']).toBe(String(answer.body.length));
  });

  it('SEC-9 PRV-4 HTML is streamed, never held whole: the head goes out after the first chunk, each piece after a pull', async () => {
    const reads: number[] = [];
    const body = 'y'.repeat(200 * CHUNK);
    const big = {
      '/big.html': {
        bytes: new TextEncoder().encode(`<html><head></head><body>${body}</body></html>`),
        mimeType: 'text/html',
      },
    };
    const channel = new MessageChannel();
    const parts: ResponsePart[] = [];
    channel.port1.onmessage = (event: MessageEvent) => parts.push(ResponsePartSchema.parse(event.data));
    void answerPreviewRequest(
      { type: 'hbcode.preview.request', method: 'GET', path: '/big.html', range: null },
      channel.port2,
      '/big.html',
      source(big, reads),
    );
    await waitFor(() => parts.length > 0);
    expect(parts[0]).toMatchObject({ type: 'head', status: 200 });
    // The first chunk and what is read ahead (two in flight), not the 200 chunks of the file.
    expect(reads.length).toBeLessThanOrEqual(3);
    channel.port1.postMessage({ type: 'cancel' });
    channel.port1.close();
    // And the whole answer is right when pulled to the end.
    const answer = await request(source(big, []), '/big.html');
    expect(answer.body.toString('utf8')).toBe(
      `<html><head><style id="hb-theme">:root{--hb-bg:#fff}</style></head><body>${body}</body></html><script>NAV()</script>`,
    );
    expect(answer.headers['content-length']).toBe(String(answer.body.length));
  });

  it('SEC-9 an answer still open when the preview closes fails at once with a fixed code', async () => {
    const channel = new MessageChannel();
    const parts: ResponsePart[] = [];
    channel.port1.onmessage = (event: MessageEvent) => parts.push(ResponsePartSchema.parse(event.data));
    const closing = new AbortController();
    const done = answerPreviewRequest(
      { type: 'hbcode.preview.request', method: 'GET', path: '/v.webm', range: null },
      channel.port2,
      '/v.webm',
      source(files, []),
      closing.signal,
    );
    await waitFor(() => parts.length > 0);
    closing.abort();
    await done;
    await waitFor(() => parts.some((part) => part.type === 'fail'));
    expect(parts.at(-1)).toEqual({ type: 'fail', code: 'closed' });
    channel.port1.close();
  });
});

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!check()) throw new Error('the condition never held');
}
