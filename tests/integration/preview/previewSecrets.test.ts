import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcError, type RpcClient } from '../../../lib/client/rpcClient';
import type { ErrorCode } from '../../../lib/protocol/errors';
import type { MethodResult } from '../../../lib/protocol/methods';
import { makePreviewSecrets, SECRET_FILES, type PreviewSecrets } from '../../fixtures/previewSecrets';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';

const newId = () => crypto.randomBytes(16).toString('hex');

type ProjectName = 'project' | 'home' | 'sshFolder';
type Outcome = { opened: string } | { refused: ErrorCode };

interface DocumentCase {
  name: string;
  project: ProjectName;
  path: string;
  /** The file served as the document (a SECRET_FILES key), or the refusal. */
  expected: Outcome;
}

const opened = (file: string): Outcome => ({ opened: file });
const refused = (code: ErrorCode): Outcome => ({ refused: code });

/** SEC-6: which files `preview.open` takes as a document, and which it refuses. */
const DOCUMENT_CASES: DocumentCase[] = [
  { name: 'an HTML file', project: 'project', path: 'page.html', expected: opened('home/proj/page.html') },
  { name: 'an .htm file', project: 'project', path: 'index.htm', expected: opened('home/proj/index.htm') },
  {
    name: 'a document inside an ordinary dot folder',
    project: 'project',
    path: 'site/.vitepress/dist/index.html',
    expected: opened('home/proj/site/.vitepress/dist/index.html'),
  },
  { name: '.env', project: 'project', path: '.env', expected: refused('secret_file') },
  { name: '.env.local', project: 'project', path: '.env.local', expected: refused('secret_file') },
  { name: '.npmrc', project: 'project', path: '.npmrc', expected: refused('secret_file') },
  { name: '.aws/credentials', project: 'project', path: '.aws/credentials', expected: refused('secret_file') },
  { name: '.git/config', project: 'project', path: '.git/config', expected: refused('secret_file') },
  {
    name: 'an HTML document inside .git',
    project: 'project',
    path: '.git/page.html',
    expected: refused('secret_file'),
  },
  {
    name: 'an innocent symlink notes.html → .env',
    project: 'project',
    path: 'notes.html',
    expected: refused('secret_file'),
  },
  {
    name: 'an HTML document through a folder link to .git',
    project: 'project',
    path: 'gitdir/page.html',
    expected: refused('secret_file'),
  },
  { name: 'a file that is not HTML', project: 'project', path: 'data.json', expected: refused('invalid_params') },
  {
    name: 'an HTML name linked to a file that is not HTML',
    project: 'project',
    path: 'fake.html',
    expected: refused('invalid_params'),
  },
  { name: 'home as project: .ssh/config', project: 'home', path: '.ssh/config', expected: refused('secret_file') },
  { name: 'home as project: .ssh/x.html', project: 'home', path: '.ssh/x.html', expected: refused('secret_file') },
  {
    name: 'a project that is itself a hidden folder (.ssh) is never a root',
    project: 'sshFolder',
    path: 'x.html',
    expected: refused('secret_file'),
  },
];

/** SEC-6: resources of a page, whatever the PRV-2 dot-folder exception allows: path → file served, or null for 404. */
const RESOURCE_CASES: { document: string; requests: [string, string | null][] }[] = [
  {
    document: 'page.html',
    requests: [
      ['/page.html', 'home/proj/page.html'],
      ['/data.json', 'home/proj/data.json'],
      ['/gitconf', null],
      ['/gitdir/HEAD', null],
      ['/notes.html', null],
      ['/.git/HEAD', null],
      ['/.env', null],
      ['/.env.local', null],
      ['/.npmrc', null],
      ['/.aws/credentials', null],
    ],
  },
  {
    document: 'site/.vitepress/dist/index.html',
    requests: [
      ['/site/.vitepress/dist/app.js', 'home/proj/site/.vitepress/dist/app.js'],
      ['/gitconf', null],
      ['/gitdir/config', null],
      ['/notes.html', null],
      ['/.env', null],
    ],
  },
];

describe('SEC-6 preview documents, resources and roots never serve hidden secrets', () => {
  let secrets: PreviewSecrets;
  let runtime: RuntimeProcess;
  let client: RpcClient;

  beforeAll(async () => {
    secrets = makePreviewSecrets();
    runtime = await startRuntimeProcess({
      projectDirs: [secrets.project, secrets.home, secrets.sshFolder],
      env: { HOME: secrets.home },
    });
    client = await runtime.connect();
  });
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    secrets?.remove();
  });

  /** The whole resource, or null for 404. */
  async function readWhole(previewId: string, requestPath: string): Promise<string | null> {
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

  /** Opens the document and reads it back as the page would; a refusal is its code. */
  async function openDocument(
    project: ProjectName,
    requestPath: string,
  ): Promise<{ outcome: Outcome; served: string | null }> {
    const previewId = newId();
    try {
      const binding = await client.call('preview.open', {
        previewId,
        projectDirectory: secrets[project],
        path: requestPath,
      });
      const served = await readWhole(previewId, binding.documentPath);
      const file = Object.keys(SECRET_FILES).find((name) => SECRET_FILES[name] === served);
      return { outcome: opened(file ?? `unknown content ${JSON.stringify(served)}`), served };
    } catch (error) {
      if (error instanceof RpcError && error.code !== 'closed' && error.code !== 'invalid_response')
        return { outcome: refused(error.code), served: null };
      throw error;
    }
  }

  it.each(DOCUMENT_CASES)('SEC-6 preview.open: $name', async (c) => {
    const { outcome } = await openDocument(c.project, c.path);
    expect(outcome).toEqual(c.expected);
  });

  it('SEC-6 a secret refusal says why', async () => {
    const error = await client
      .call('preview.open', { previewId: newId(), projectDirectory: secrets.project, path: 'notes.html' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).message).toMatch(/kept private: it holds environment settings/);
    const notHtml = await client
      .call('preview.open', { previewId: newId(), projectDirectory: secrets.project, path: 'data.json' })
      .catch((e: unknown) => e);
    expect((notHtml as RpcError).message).toMatch(/HTML/);
  });

  it.each(RESOURCE_CASES)('SEC-6 files.readHtmlPreviewResource from $document', async ({ document, requests }) => {
    const previewId = newId();
    await client.call('preview.open', { previewId, projectDirectory: secrets.project, path: document });
    for (const [requestPath, served] of requests) {
      expect(await readWhole(previewId, requestPath), requestPath).toBe(served === null ? null : SECRET_FILES[served]);
    }
  });
});
