import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcError, type RpcClient } from '../../../lib/client/rpcClient';
import { ATTACHMENT_CHUNK_BYTES } from '../../../lib/protocol/attachments';
import {
  CHUNK_HEADER,
  HTTP_ATTACHMENT_CHUNK_PATH,
  HTTP_FILE_CHUNK_PATH,
  HttpChunkHeaderSchema,
  PINNED_VERSION_HEADER,
} from '../../../lib/protocol/httpBytes';
import { sha256Of } from '../../fixtures/attachmentUploads';
import { httpRequest, refusalOf, type RawAnswer } from '../../fixtures/httpRequest';
import { startRuntimeProcess, TEST_TOKEN, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { seededRandom } from '../../fixtures/seededRandom';
import { createShellSession } from '../../fixtures/sessionHelpers';

function seededBytes(length: number, seed: number): Buffer {
  const random = seededRandom(seed);
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = Math.floor(random() * 256);
  return bytes;
}

const bearer = (token = TEST_TOKEN) => ({ authorization: `Bearer ${token}` });

/** What the socket answers for the same read: the HTTP route must refuse exactly when it does (FILE-3, SEC-2). */
async function socketRefusalCode(client: RpcClient, projectDirectory: string, requestPath: string): Promise<string> {
  const thrown = await client.callBinary('files.readBinary', { projectDirectory, path: requestPath, offset: 0 }).then(
    () => null,
    (error: unknown) => error,
  );
  if (!(thrown instanceof RpcError)) throw new Error(`the socket read ${requestPath} instead of refusing it`);
  return thrown.code;
}

describe('FILE-2 ATT-1 chunk bytes over HTTP on the app origin', () => {
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let project: string;
  const file = seededBytes(5 * 1024 * 1024 + 123, 7);

  beforeAll(async () => {
    runtime = await startRuntimeProcess();
    client = await runtime.connect();
    project = fs.realpathSync(runtime.projectDir);
    fs.writeFileSync(path.join(project, 'data.bin'), file);
    fs.writeFileSync(path.join(project, '.env'), 'SECRET=1\n');
    const outside = fs.mkdtempSync(path.join(path.dirname(project), 'outside-'));
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'not yours');
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(project, 'link-out.txt'));
  });
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
  });

  const fileChunk = (
    query: Record<string, string>,
    headers: Record<string, string> = bearer(),
    extra: { host?: string; method?: string } = {},
  ) =>
    httpRequest(runtime.port, {
      host: extra.host ?? runtime.appHost,
      method: extra.method ?? 'GET',
      path: `${HTTP_FILE_CHUNK_PATH}?${new URLSearchParams({ projectDirectory: project, ...query }).toString()}`,
      headers,
    });

  const expectRefused = (answer: RawAnswer, status: number, code: string) => {
    expect(answer.status).toBe(status);
    expect(refusalOf(answer).data.code).toBe(code);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    expect(answer.headers['cache-control']).toBe('no-store');
  };

  it('FILE-2 answers a chunk with its header and SHA-256, uncached, same-origin only, and the next one under the pinned version', async () => {
    const first = await fileChunk({ path: 'data.bin', offset: '0', length: String(4 * 1024 * 1024) });
    expect(first.status).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.headers['cross-origin-resource-policy']).toBe('same-origin');
    expect(first.headers['access-control-allow-origin']).toBeUndefined();
    const header = HttpChunkHeaderSchema.parse(JSON.parse(String(first.headers[CHUNK_HEADER])));
    expect(header).toMatchObject({
      offset: 0,
      nextOffset: 4 * 1024 * 1024,
      byteCount: 4 * 1024 * 1024,
      size: file.length,
    });
    expect(first.body.equals(file.subarray(0, 4 * 1024 * 1024))).toBe(true);
    expect(header.sha256).toBe(sha256Of(first.body));

    const second = await fileChunk(
      { path: 'data.bin', offset: String(header.nextOffset) },
      { ...bearer(), [PINNED_VERSION_HEADER]: header.contentVersion },
    );
    expect(second.status).toBe(200);
    expect(second.body.equals(file.subarray(4 * 1024 * 1024))).toBe(true);
    expect(HttpChunkHeaderSchema.parse(JSON.parse(String(second.headers[CHUNK_HEADER]))).nextOffset).toBeNull();
  });

  it('SEC-1 SEC-8 refuses a request without a token, with a wrong one, with the token only in a cookie or in the URL', async () => {
    expectRefused(await fileChunk({ path: 'data.bin', offset: '0' }, {}), 401, 'unauthorized');
    expectRefused(
      await fileChunk({ path: 'data.bin', offset: '0' }, bearer('not-the-token-0123456789')),
      401,
      'unauthorized',
    );
    expectRefused(
      await fileChunk({ path: 'data.bin', offset: '0' }, { authorization: TEST_TOKEN }),
      401,
      'unauthorized',
    );
    const cookieOnly = await fileChunk(
      { path: 'data.bin', offset: '0' },
      { cookie: `token=${TEST_TOKEN}; authorization=Bearer%20${TEST_TOKEN}` },
    );
    expectRefused(cookieOnly, 401, 'unauthorized');
    expect(cookieOnly.headers['clear-site-data']).toBe('"cookies"');
    expectRefused(await fileChunk({ path: 'data.bin', offset: '0', token: TEST_TOKEN }, {}), 401, 'unauthorized');
  });

  it('FILE-3 SEC-2 SEC-7 refuses traversal, a link out of the root, hidden secrets and folders as files.readBinary does', async () => {
    const cases = [
      { projectDirectory: project, path: '../outside.txt' },
      { projectDirectory: project, path: 'sub/../../data.bin' },
      { projectDirectory: project, path: 'link-out.txt' },
      { projectDirectory: project, path: '.env' },
      { projectDirectory: project, path: '.' },
      { projectDirectory: path.dirname(project), path: path.join(path.basename(project), 'data.bin') },
    ];
    for (const { projectDirectory, path: requestPath } of cases) {
      const answer = await fileChunk({ projectDirectory, path: requestPath, offset: '0' });
      const code = await socketRefusalCode(client, projectDirectory, requestPath);
      expect(answer.status, requestPath).toBeGreaterThanOrEqual(400);
      expect(answer.status, requestPath).toBeLessThan(500);
      expect(refusalOf(answer).data.code, requestPath).toBe(code);
      expect(answer.headers[CHUNK_HEADER], requestPath).toBeUndefined();
      expect(answer.body.toString('utf8')).not.toContain('not yours');
    }
  });

  it('FILE-2 refuses a chunk of another version than the pinned one, also after the file changed midway', async () => {
    const wrongPin = await fileChunk(
      { path: 'data.bin', offset: '0' },
      { ...bearer(), [PINNED_VERSION_HEADER]: '0'.repeat(32) },
    );
    expectRefused(wrongPin, 412, 'conflict');
    expect(refusalOf(wrongPin).data.reason).toBe('file_changed');

    const target = path.join(project, 'changing.bin');
    fs.writeFileSync(target, seededBytes(2 * ATTACHMENT_CHUNK_BYTES, 3));
    const first = await fileChunk({ path: 'changing.bin', offset: '0', length: String(ATTACHMENT_CHUNK_BYTES) });
    const version = HttpChunkHeaderSchema.parse(JSON.parse(String(first.headers[CHUNK_HEADER]))).contentVersion;
    fs.appendFileSync(target, 'more');
    const later = await fileChunk(
      { path: 'changing.bin', offset: String(ATTACHMENT_CHUNK_BYTES) },
      { ...bearer(), [PINNED_VERSION_HEADER]: version },
    );
    expectRefused(later, 412, 'conflict');
    expect(later.body.length).toBeLessThan(1024);
  });

  it('ORG-4 a preview origin cannot call it: its host serves no API, its Origin and a preflight from it are refused without CORS', async () => {
    const previewHost = `p-${'a'.repeat(32)}.hbcode.localhost:${runtime.port}`;
    const previewOrigin = `http://${previewHost}`;
    const onPreviewHost = await fileChunk({ path: 'data.bin', offset: '0' }, bearer(), { host: previewHost });
    expect(onPreviewHost.body.equals(file.subarray(0, onPreviewHost.body.length)) && onPreviewHost.status === 200).toBe(
      false,
    );
    expect(onPreviewHost.headers['access-control-allow-origin']).toBeUndefined();
    expectRefused(
      await fileChunk({ path: 'data.bin', offset: '0' }, { ...bearer(), origin: previewOrigin }),
      403,
      'unauthorized',
    );
    expectRefused(
      await fileChunk({ path: 'data.bin', offset: '0' }, { ...bearer(), 'sec-fetch-site': 'same-site' }),
      403,
      'unauthorized',
    );
    const preflight = await fileChunk(
      { path: 'data.bin', offset: '0' },
      {
        origin: previewOrigin,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
      { method: 'OPTIONS' },
    );
    expect(preflight.status).toBe(405);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(preflight.headers['access-control-allow-headers']).toBeUndefined();
  });

  it('ATT-1 takes attachment chunks as PUTs in any order within the window and confirms offsets in order', async () => {
    const sessionId = await createShellSession(client);
    const bytes = seededBytes(3.5 * ATTACHMENT_CHUNK_BYTES, 11);
    const begun = await client.call('attachments.begin', {
      sessionId,
      name: 'http.bin',
      mimeType: 'application/octet-stream',
      byteLength: bytes.length,
      sha256: sha256Of(bytes),
    });
    const put = (index: number, headers: Record<string, string> = bearer(), sha256?: string) => {
      const chunk = bytes.subarray(index * ATTACHMENT_CHUNK_BYTES, (index + 1) * ATTACHMENT_CHUNK_BYTES);
      const query = new URLSearchParams({
        sessionId,
        uploadId: begun.uploadId,
        offset: String(index * ATTACHMENT_CHUNK_BYTES),
        sha256: sha256 ?? sha256Of(chunk),
      });
      return httpRequest(runtime.port, {
        host: runtime.appHost,
        method: 'PUT',
        path: `${HTTP_ATTACHMENT_CHUNK_PATH}?${query.toString()}`,
        headers,
        body: chunk,
      });
    };
    expectRefused(await put(0, {}), 401, 'unauthorized');
    expectRefused(await put(0, bearer(), 'f'.repeat(64)), 400, 'invalid_params');
    expect((await client.call('attachments.status', { sessionId, uploadId: begun.uploadId })).confirmedOffset).toBe(0);

    // The later chunks are sent first: each waits for the ones before it.
    const answers = await Promise.all([put(3), put(1), put(2), put(0)]);
    const statuses = answers.map(
      (a) => JSON.parse(a.body.toString('utf8')) as { confirmedOffset: number; complete: boolean },
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(statuses.map((s) => s.confirmedOffset)).toEqual(
      [bytes.length, 2, 3, 1].map((n) => Math.min(bytes.length, n * ATTACHMENT_CHUNK_BYTES)),
    );
    expect(statuses[0]!.complete).toBe(true);
    const stored = path.join(runtime.dataDir, 'pasted-images', sessionId, begun.uploadId, 'http.bin');
    expect(fs.readFileSync(stored).equals(bytes)).toBe(true);
  });
});
