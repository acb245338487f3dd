import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { MethodResult } from '../../../lib/protocol/methods';
import { FILE_CHUNK_BYTES } from '../../../lib/protocol/files';
import {
  makePreviewTree,
  HIDDEN_FOLDER_CASES,
  REPORT_PATH_CASES,
  TREE_FILES,
  type PreviewTree,
} from '../../fixtures/previewTree';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { expectRpcError } from '../../fixtures/rpcErrors';

const newId = () => crypto.randomBytes(16).toString('hex');

/** The whole resource as the runtime serves it (base64 transfer), or null for 404. */
async function readWhole(client: RpcClient, previewId: string, requestPath: string): Promise<string | null> {
  let offset: number | null = 0;
  const parts: Buffer[] = [];
  while (offset !== null) {
    const answer: MethodResult<'files.readHtmlPreviewResource'> = await client.call('files.readHtmlPreviewResource', {
      previewId,
      path: requestPath,
      offset,
    });
    if (answer.status === 404) return null;
    parts.push(Buffer.from(answer.dataBase64, 'base64'));
    offset = answer.nextOffset;
  }
  return Buffer.concat(parts).toString('utf8');
}

describe('PRV-1 PRV-2 preview bindings and resources over a real WebSocket', () => {
  let tree: PreviewTree;
  let runtime: RuntimeProcess;
  let client: RpcClient;

  beforeAll(async () => {
    tree = makePreviewTree();
    // HOME is the fake home: the runtime's root rules must see it as the home folder.
    runtime = await startRuntimeProcess({
      projectDirs: [tree.project, tree.home, tree.top, '/'],
      env: { HOME: tree.home },
    });
    client = await runtime.connect();
  });
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    tree?.remove();
  });

  it('PRV-2 a page previewing docs/report.html reads exactly the files the path rules allow', async () => {
    const previewId = newId();
    const opened = await client.call('preview.open', {
      previewId,
      projectDirectory: tree.project,
      path: 'docs/report.html',
    });
    expect(opened).toMatchObject({
      previewId,
      documentPath: '/docs/report.html',
      pathPrefix: '/',
      root: tree.project + path.sep,
      sharedOrigin: false,
    });
    expect(opened.origin).toBe(`http://p-${previewId}.hbcode.localhost:${runtime.port}`);
    expect(opened.url).toBe(`${opened.origin}/docs/report.html`);
    expect(opened.hostUrl).toBe(`${opened.origin}/.hbcode/host.html`);
    for (const [requestPath, served] of REPORT_PATH_CASES) {
      expect(await readWhole(client, previewId, requestPath), requestPath).toBe(
        served === null ? null : TREE_FILES[served],
      );
    }
  });

  it('PRV-2 a document inside hidden folders reads those folders, and no other dot name', async () => {
    const previewId = newId();
    await client.call('preview.open', {
      previewId,
      projectDirectory: tree.project,
      path: 'site/.vitepress/dist/index.html',
    });
    for (const [requestPath, served] of HIDDEN_FOLDER_CASES) {
      expect(await readWhole(client, previewId, requestPath), requestPath).toBe(
        served === null ? null : TREE_FILES[served],
      );
    }
  });

  it('PRV-1 the home folder is never a root: a document directly in it reads only itself', async () => {
    const previewId = newId();
    const opened = await client.call('preview.open', { previewId, projectDirectory: tree.home, path: 'page.html' });
    expect(opened.root).toBe(path.join(tree.home, 'page.html'));
    expect(await readWhole(client, previewId, '/page.html')).toBe(TREE_FILES['top/home/page.html']);
    expect(await readWhole(client, previewId, '/')).toBe(TREE_FILES['top/home/page.html']);
    for (const other of ['/secret.txt', '/proj/src/chart.js', '/proj/docs/report.html', '/proj']) {
      expect(await readWhole(client, previewId, other), other).toBeNull();
    }
  });

  it('PRV-1 with the home folder as project, a deeper document gets its own folder as root', async () => {
    const previewId = newId();
    const opened = await client.call('preview.open', {
      previewId,
      projectDirectory: tree.home,
      path: 'proj/docs/report.html',
    });
    expect(opened.root).toBe(path.join(tree.project, 'docs') + path.sep);
    expect(opened.documentPath).toBe('/report.html');
    expect(await readWhole(client, previewId, '/report.html')).toBe(TREE_FILES['top/home/proj/docs/report.html']);
    expect(await readWhole(client, previewId, '/../src/chart.js')).toBeNull();
    expect(await readWhole(client, previewId, '/src/chart.js')).toBeNull();
  });

  it('PRV-1 a parent of home is never a root: a document directly in it reads only itself', async () => {
    const previewId = newId();
    const opened = await client.call('preview.open', { previewId, projectDirectory: tree.top, path: 'toppage.html' });
    expect(opened.root).toBe(path.join(tree.top, 'toppage.html'));
    expect(await readWhole(client, previewId, '/toppage.html')).toBe(TREE_FILES['top/toppage.html']);
    expect(await readWhole(client, previewId, '/home/secret.txt')).toBeNull();
  });

  it('PRV-1 the filesystem root is never a root: the document folder serves instead', async () => {
    const previewId = newId();
    const opened = await client.call('preview.open', {
      previewId,
      projectDirectory: '/',
      path: path.join(tree.project, 'docs/report.html'),
    });
    expect(opened.root).toBe(path.join(tree.project, 'docs') + path.sep);
    expect(await readWhole(client, previewId, '/report.html')).toBe(TREE_FILES['top/home/proj/docs/report.html']);
    expect(await readWhole(client, previewId, '/../src/chart.js')).toBeNull();
  });

  it('PRV-1 an id binds one document: the same document again is fine, another is a conflict', async () => {
    const previewId = newId();
    await client.call('preview.open', { previewId, projectDirectory: tree.project, path: 'docs/report.html' });
    await client.call('preview.open', { previewId, projectDirectory: tree.project, path: '/docs/report.html' });
    await expectRpcError(
      client.call('preview.open', { previewId, projectDirectory: tree.project, path: 'folder/index.html' }),
      'conflict',
    );
    expect(await readWhole(client, previewId, '/docs/report.html')).toBe(TREE_FILES['top/home/proj/docs/report.html']);
  });

  it('PRV-1 bad bindings are typed errors: unknown project, missing or outside document, a folder, a bad id, an unknown preview', async () => {
    const id = newId();
    await expectRpcError(
      client.call('preview.open', { previewId: id, projectDirectory: tree.outside, path: 'logo.png' }),
      'not_found',
    );
    await expectRpcError(
      client.call('preview.open', { previewId: id, projectDirectory: tree.project, path: 'nope.html' }),
      'not_found',
    );
    await expectRpcError(
      client.call('preview.open', { previewId: id, projectDirectory: tree.project, path: '../secret.txt' }),
      'invalid_params',
    );
    await expectRpcError(
      client.call('preview.open', { previewId: id, projectDirectory: tree.project, path: 'assets/logo.png' }),
      'invalid_params',
    );
    await expectRpcError(
      client.call('preview.open', { previewId: id, projectDirectory: tree.project, path: 'docs' }),
      'invalid_params',
    );
    await expectRpcError(
      client.call('preview.open', { previewId: 'XYZ', projectDirectory: tree.project, path: 'docs/report.html' }),
      'invalid_params',
    );
    await expectRpcError(
      client.call('files.readHtmlPreviewResource', { previewId: newId(), path: '/docs/report.html', offset: 0 }),
      'not_found',
    );
  });

  it('FILE-2 resources come in verified 4 MiB chunks from any offset, base64 and binary alike', async () => {
    const big = crypto.randomBytes(FILE_CHUNK_BYTES * 2 + 12345);
    fs.writeFileSync(path.join(tree.project, 'data/big.bin'), big);
    const previewId = newId();
    await client.call('preview.open', { previewId, projectDirectory: tree.project, path: 'docs/report.html' });
    const first = await client.call('files.readHtmlPreviewResource', { previewId, path: '/data/big.bin', offset: 0 });
    if (first.status !== 200) throw new Error('expected the file');
    expect(first).toMatchObject({
      offset: 0,
      byteCount: FILE_CHUNK_BYTES,
      nextOffset: FILE_CHUNK_BYTES,
      size: big.length,
      mimeType: 'application/octet-stream',
    });
    const firstBytes = Buffer.from(first.dataBase64, 'base64');
    expect(firstBytes.equals(big.subarray(0, FILE_CHUNK_BYTES))).toBe(true);
    expect(first.sha256).toBe(crypto.createHash('sha256').update(firstBytes).digest('hex'));

    const middle = 1_000_000;
    const binary = await client.callBinary('files.readHtmlPreviewResource', {
      previewId,
      path: '/data/big.bin',
      offset: middle,
    });
    if (binary.result.status !== 200) throw new Error('expected the file');
    expect(binary.result.dataBase64).toBe('');
    expect(Buffer.from(binary.data).equals(big.subarray(middle, middle + FILE_CHUNK_BYTES))).toBe(true);
    expect(binary.result).toMatchObject({
      offset: middle,
      nextOffset: middle + FILE_CHUNK_BYTES,
      contentVersion: first.contentVersion,
    });

    const missing = await client.callBinary('files.readHtmlPreviewResource', {
      previewId,
      path: '/data/none.bin',
      offset: 0,
    });
    expect(missing.result).toEqual({ status: 404 });
    expect(missing.data.byteLength).toBe(0);

    const last = await client.call('files.readHtmlPreviewResource', {
      previewId,
      path: '/data/big.bin',
      offset: FILE_CHUNK_BYTES * 2,
    });
    expect(last).toMatchObject({ status: 200, byteCount: 12345, nextOffset: null });
    const past = await expectRpcError(
      client.call('files.readHtmlPreviewResource', { previewId, path: '/data/big.bin', offset: big.length + 1 }),
      'invalid_params',
    );
    expect(past.data).toMatchObject({ size: big.length });
  });

  it('PRV-6 changing a file the preview read sends preview.changed for that preview', async () => {
    const previewId = newId();
    fs.writeFileSync(path.join(tree.project, 'src/live.js'), 'export const live = 1;\n');
    await client.call('preview.open', { previewId, projectDirectory: tree.project, path: 'docs/report.html' });
    expect(await readWhole(client, previewId, '/src/live.js')).toBe('export const live = 1;\n');
    const changed = new Promise<{ previewId: string; path: string }>((resolve) => {
      const stop = client.onNotification('preview.changed', (params) => {
        if (params.previewId === previewId) {
          stop();
          resolve(params);
        }
      });
    });
    fs.writeFileSync(path.join(tree.project, 'src/live.js'), 'export const live = 2;\n');
    expect(await changed).toEqual({ previewId, path: '/src/live.js' });
    await client.call('preview.close', { previewId });
    await expectRpcError(
      client.call('files.readHtmlPreviewResource', { previewId, path: '/src/chart.js', offset: 0 }),
      'not_found',
    );
  });
});
