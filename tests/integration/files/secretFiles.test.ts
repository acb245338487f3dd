import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcError, type RpcClient } from '../../../lib/client/rpcClient';
import { HTTP_FILE_CHUNK_PATH } from '../../../lib/protocol/httpBytes';
import { parseCli } from '../../../server/cli';
import { uploadBytes } from '../../fixtures/attachmentUploads';
import {
  CREDENTIAL_FILES,
  makeCredentialHome,
  ORDINARY_FILES,
  OUTSIDE_ENV_TEXT,
  PRIVATE_KEY_TEXT,
  type CredentialHome,
} from '../../fixtures/credentialHome';
import { httpRequest, refusalOf } from '../../fixtures/httpRequest';
import { startRuntimeProcess, TEST_TOKEN, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { createShellSession } from '../../fixtures/sessionHelpers';

type Outcome = { served: string } | { refused: string; reason?: unknown };

async function outcomeOf(read: Promise<Uint8Array | string>): Promise<Outcome> {
  try {
    const value = await read;
    return { served: typeof value === 'string' ? value : Buffer.from(value).toString('utf8') };
  } catch (error) {
    if (error instanceof RpcError && error.code !== 'closed' && error.code !== 'invalid_response')
      return { refused: error.code, reason: error.data.reason };
    throw error;
  }
}

const RUNTIME_DATA_FILES = ['hbcode.db', 'hbcode.db-wal', 'vapid-keys.json'];
const tools = new Set(Object.values(CREDENTIAL_FILES).map((f) => f.tool));

describe('FILE-6 a home folder with credential files and the data folder inside, served as a project', () => {
  let home: CredentialHome;
  let runtime: RuntimeProcess;
  let client: RpcClient;

  const readBinary = (requestPath: string, offset = 0) =>
    outcomeOf(
      client
        .callBinary('files.readBinary', { projectDirectory: home.home, path: requestPath, offset })
        .then((r) => r.data),
    );
  const readContent = (requestPath: string) =>
    outcomeOf(client.call('files.readContent', { projectDirectory: home.home, path: requestPath }).then((r) => r.text));
  const httpChunk = async (requestPath: string) => {
    const query = new URLSearchParams({ projectDirectory: home.home, path: requestPath, offset: '0' });
    const answer = await httpRequest(runtime.port, {
      host: runtime.appHost,
      path: `${HTTP_FILE_CHUNK_PATH}?${query.toString()}`,
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    return answer.status === 200
      ? { served: answer.body.toString('utf8') }
      : { status: answer.status, refused: refusalOf(answer).data.code };
  };
  const listAll = async (): Promise<string[]> => {
    const seen: string[] = [];
    const walk = async (folder: string) => {
      const { entries } = await client.call('files.list', { projectDirectory: home.home, path: folder });
      for (const entry of entries) {
        const relative = folder === '' ? entry.name : `${folder}/${entry.name}`;
        seen.push(relative);
        if (entry.kind === 'directory') await walk(relative);
      }
    };
    await walk('');
    return seen;
  };
  const secretPaths = Object.keys(CREDENTIAL_FILES);
  const dataPaths = RUNTIME_DATA_FILES.map((name) => `.local/share/hbcode/${name}`);
  const agentHomePath = '.local/share/hbcode/codex/profiles/p1/home/sessions.jsonl';

  beforeAll(async () => {
    home = makeCredentialHome();
    runtime = await startRuntimeProcess({ dataDir: home.dataDir, projectDirs: [home.home] });
    client = await runtime.connect();
  });
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    home?.remove();
  });

  it('FILE-6 the generated home holds the credential files of at least 15 tools, and the data folder is really there', () => {
    expect(tools.size).toBeGreaterThanOrEqual(15);
    for (const name of [...secretPaths, ...dataPaths])
      expect(fs.existsSync(path.join(home.home, name)), name).toBe(true);
    expect(fs.statSync(path.join(home.home, 'hard-link.txt')).nlink).toBe(2);
  });

  it('FILE-6 files.readBinary, files.readContent and GET /api/files/chunk refuse every credential file with secret_file', async () => {
    for (const name of secretPaths) {
      expect(await readBinary(name), name).toEqual({ refused: 'secret_file', reason: 'credential' });
      expect(await readContent(name), name).toEqual({ refused: 'secret_file', reason: 'credential' });
      expect(await httpChunk(name), name).toEqual({ status: 403, refused: 'secret_file' });
    }
  });

  it('FILE-6 the data folder (database, its WAL, the push key) and the agent homes it manages are refused on every path, also through links with innocent names', async () => {
    for (const name of [
      ...dataPaths,
      agentHomePath,
      'innocent-data/hbcode.db',
      'innocent-data/vapid-keys.json',
      'agent-homes/profiles/p1/home/sessions.jsonl',
    ]) {
      expect(await readBinary(name), name).toEqual({ refused: 'secret_file', reason: 'runtime_data' });
      expect(await readContent(name), name).toEqual({ refused: 'secret_file', reason: 'runtime_data' });
      expect(await httpChunk(name), name).toEqual({ status: 403, refused: 'secret_file' });
    }
    const listing = await outcomeOf(
      client
        .call('files.list', { projectDirectory: home.home, path: '.local/share/hbcode' })
        .then((r) => JSON.stringify(r.entries)),
    );
    expect(listing).toEqual({ refused: 'secret_file', reason: 'runtime_data' });
    expect(await readBinary('innocent-link')).toEqual({ refused: 'secret_file', reason: 'credential' });
  });

  it('FILE-6 files.list shows no credential file, no data folder and no agent home, and keeps the ordinary dotfiles', async () => {
    const listed = await listAll();
    expect(listed.filter((relative) => secretPaths.includes(relative))).toEqual([]);
    expect(
      listed.filter(
        (relative) =>
          relative.startsWith('.local/share/hbcode') ||
          relative.startsWith('agent-homes/profiles') ||
          relative.startsWith('innocent-'),
      ),
    ).toEqual([]);
    for (const name of ['.ssh', '.aws', '.kube', '.docker', '.gnupg', '.azure', '.config/gcloud', 'project/.git'])
      expect(listed).not.toContain(name);
    for (const name of Object.keys(ORDINARY_FILES)) expect(listed).toContain(name);
    // Refused only once open: listed, so the app can say why when one is opened.
    expect(listed).toContain('hard-link.txt');
    expect(listed).toContain('notes/todo.txt');
  });

  it('FILE-6 .gitignore, .editorconfig and look-alikes of credential names stay served', async () => {
    for (const [name, text] of Object.entries(ORDINARY_FILES)) {
      expect(await readBinary(name), name).toEqual({ served: text });
      expect(await httpChunk(name), name).toEqual({ served: text });
    }
  });

  it('FILE-6 a hard link to a .env outside the project is refused; so is a private key under an innocent name, at any offset', async () => {
    expect(await readBinary('hard-link.txt')).toEqual({ refused: 'secret_file', reason: 'hard_link' });
    expect(await httpChunk('hard-link.txt')).toEqual({ status: 403, refused: 'secret_file' });
    expect(await readBinary('notes/todo.txt')).toEqual({ refused: 'secret_file', reason: 'private_key' });
    expect(await readBinary('notes/todo.txt', 20)).toEqual({ refused: 'secret_file', reason: 'private_key' });
    expect(await readContent('notes/todo.txt')).toEqual({ refused: 'secret_file', reason: 'private_key' });
  });

  it('FILE-6 a refusal says in words what the file holds and how to allow its type', async () => {
    const error = (await client
      .call('files.readContent', { projectDirectory: home.home, path: '.config/gh/hosts.yml' })
      .catch((e: unknown) => e)) as RpcError;
    expect(error.code).toBe('secret_file');
    expect(error.message).toBe(
      "This file is kept private: it holds the GitHub CLI's sign-in tokens. To show files of this kind, start the runtime with --allow-secret-files gh.",
    );
    expect(error.data).toMatchObject({ reason: 'credential', secretType: 'gh', allowWith: '--allow-secret-files gh' });
  });

  it('FILE-6 SEC-6 a preview serves none of them, even where the dot-folder exception would let its names through', async () => {
    const resourceOf = async (document: string, requests: string[]) => {
      const previewId = crypto.randomBytes(16).toString('hex');
      await client.call('preview.open', { previewId, projectDirectory: home.home, path: document });
      const answers: Record<string, string | number> = {};
      for (const request of requests) {
        const answer = await client.callBinary('files.readHtmlPreviewResource', {
          previewId,
          path: request,
          offset: 0,
        });
        answers[request] =
          answer.result.status === 200 ? Buffer.from(answer.data).toString('utf8') : answer.result.status;
      }
      return answers;
    };
    const fromConfig = await resourceOf('.config/index.html', [
      '/.config/gh/config.yml',
      '/notes/plain.txt',
      ...secretPaths.map((s) => `/${s}`),
      '/hard-link.txt',
      '/notes/todo.txt',
      '/innocent-link',
      '/innocent-data/hbcode.db',
    ]);
    expect(fromConfig['/.config/gh/config.yml']).toBe(ORDINARY_FILES['.config/gh/config.yml']);
    expect(fromConfig['/notes/plain.txt']).toBe(ORDINARY_FILES['notes/plain.txt']);
    expect(
      Object.entries(fromConfig)
        .filter(([, answer]) => answer !== 404)
        .map(([request]) => request),
    ).toEqual(['/.config/gh/config.yml', '/notes/plain.txt']);
    const fromShare = await resourceOf('.local/share/index.html', [
      '/.local/share/ok.txt',
      ...dataPaths.map((s) => `/${s}`),
      `/${agentHomePath}`,
      '/.local/share/fish/fish_history',
    ]);
    expect(Object.entries(fromShare).filter(([, answer]) => answer !== 404)).toEqual([
      ['/.local/share/ok.txt', ORDINARY_FILES['.local/share/ok.txt']],
    ]);
    for (const document of [
      '.ssh/config',
      '.local/share/hbcode/hbcode.db',
      'innocent-data/vapid-keys.json',
      'innocent-link',
    ]) {
      expect(
        await outcomeOf(
          client
            .call('preview.open', {
              previewId: crypto.randomBytes(16).toString('hex'),
              projectDirectory: home.home,
              path: document,
            })
            .then(() => 'opened'),
        ),
      ).toMatchObject({ refused: 'secret_file' });
    }
  });

  it('FILE-6 ATT-1 a stored attachment swapped for a link to a credential file, or holding a private key, is refused', async () => {
    const sessionId = await createShellSession(client);
    const readAttachment = (uploadId: string) =>
      outcomeOf(client.callBinary('attachments.read', { sessionId, uploadId, offset: 0 }).then((r) => r.data));
    const upload = async (name: string, text: string) =>
      (await uploadBytes(client, sessionId, name, 'text/plain', Buffer.from(text))).status.uploadId;
    const storedPath = (uploadId: string, name: string) =>
      path.join(home.dataDir, 'pasted-images', sessionId, uploadId, name);

    const plain = await upload('plain.txt', 'an ordinary note\n');
    expect(await readAttachment(plain)).toEqual({ served: 'an ordinary note\n' });

    const gitCredentials = fs.readFileSync(path.join(home.home, '.git-credentials'), 'utf8');
    const symlinked = await upload('a.txt', gitCredentials.replace(/./g, 'x'));
    fs.rmSync(storedPath(symlinked, 'a.txt'));
    fs.symlinkSync(path.join(home.home, '.git-credentials'), storedPath(symlinked, 'a.txt'));
    expect(await readAttachment(symlinked)).toEqual({ refused: 'secret_file', reason: 'replaced' });

    const hardLinked = await upload('b.txt', gitCredentials.replace(/./g, 'y'));
    fs.rmSync(storedPath(hardLinked, 'b.txt'));
    fs.linkSync(path.join(home.home, '.git-credentials'), storedPath(hardLinked, 'b.txt'));
    expect(await readAttachment(hardLinked)).toEqual({ refused: 'secret_file', reason: 'replaced' });
    fs.rmSync(storedPath(hardLinked, 'b.txt'));

    const key = await upload('notes.txt', PRIVATE_KEY_TEXT);
    expect(await readAttachment(key)).toEqual({ refused: 'secret_file', reason: 'private_key' });
  });

  it('FILE-6 --allow-secret-files lets the chosen types through and nothing else; the data folder stays refused', async () => {
    client.close();
    runtime = await runtime.restart({
      wrap: (command) => [
        ...command,
        '--allow-secret-files',
        'gitconfig,hardlink',
        '--allow-secret-files',
        'private-key',
      ],
    });
    client = await runtime.connect();
    expect(await readBinary('.gitconfig')).toEqual({ served: CREDENTIAL_FILES['.gitconfig']!.text });
    expect(await httpChunk('.gitconfig')).toEqual({ served: CREDENTIAL_FILES['.gitconfig']!.text });
    expect(await readBinary('hard-link.txt')).toEqual({ served: OUTSIDE_ENV_TEXT });
    expect(await readBinary('notes/todo.txt')).toEqual({ served: PRIVATE_KEY_TEXT });
    expect(
      (await client.call('files.list', { projectDirectory: home.home, path: '' })).entries.map((e) => e.name),
    ).toContain('.gitconfig');
    for (const name of secretPaths.filter((s) => s !== '.gitconfig'))
      expect(await readBinary(name), name).toEqual({ refused: 'secret_file', reason: 'credential' });
    for (const name of dataPaths)
      expect(await readBinary(name), name).toEqual({ refused: 'secret_file', reason: 'runtime_data' });
  });

  it('FILE-6 an unknown type stops start-up with the list of known ones', () => {
    expect(() => parseCli(['--allow-secret-files', 'gitconfig,gitconfg', home.home], {}, home.home)).toThrow(
      /unknown type "gitconfg".*known types: env, git, git-credentials, gitconfig/s,
    );
    expect([
      ...parseCli(['--allow-secret-files', 'gitconfig', '--allow-secret-files', 'npmrc', home.home], {}, home.home)
        .allowSecretFiles,
    ]).toEqual(['gitconfig', 'npmrc']);
  });
});
