// Runs in the page (bundled by bench/lib/pageBundle.ts): the two contenders of the attachment upload benchmark.
import { fileSha256, uploadAttachment } from '../../lib/client/attachments/uploadAttachment';
import { connected } from './pageRpc';

export interface Att1Args {
  token: string;
  sessionId: string;
  httpUrl: string;
  totalBytes: number;
  seed: number;
  round: number;
}

export interface Att1Run {
  ms: number;
  bytes: number;
}

let file: { blob: Blob; sha256: string; hashMs: number } | null = null;

/** The same seeded bytes for both contenders (xorshift32), made once per page. */
async function theFile(args: Att1Args): Promise<{ blob: Blob; sha256: string; hashMs: number }> {
  if (file) return file;
  const bytes = new Uint8Array(args.totalBytes);
  const words = new Uint32Array(bytes.buffer);
  let x = args.seed >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x >>> 0;
  }
  const blob = new Blob([bytes]);
  const started = performance.now();
  const sha256 = await fileSha256(blob);
  file = { blob, sha256, hashMs: performance.now() - started };
  return file;
}

/** The app's chunked path: attachments.begin, then 1 MiB binary chunks with their SHA-256, until confirmed. */
async function uploadThroughChunks(args: Att1Args): Promise<Att1Run> {
  const rpc = await connected(args.token);
  const { blob, sha256 } = await theFile(args);
  const started = performance.now();
  // Each round is a new upload (another name), not a resume of the last one.
  const status = await uploadAttachment(rpc, {
    sessionId: args.sessionId,
    blob,
    name: `bench-${args.round}.bin`,
    mimeType: 'application/octet-stream',
    sha256,
  });
  if (!status.complete) throw new Error('the upload did not complete');
  return { ms: performance.now() - started, bytes: status.confirmedOffset };
}

/** The same bytes as one plain fetch POST. */
async function uploadOverHttp(args: Att1Args): Promise<Att1Run> {
  const { blob } = await theFile(args);
  const started = performance.now();
  const answer = await fetch(args.httpUrl, { method: 'POST', body: blob, cache: 'no-store' });
  const bytes = Number(await answer.text());
  return { ms: performance.now() - started, bytes };
}

async function hashMs(args: Att1Args): Promise<number> {
  return (await theFile(args)).hashMs;
}

Object.assign(globalThis, { att1: { uploadThroughChunks, uploadOverHttp, hashMs } });
