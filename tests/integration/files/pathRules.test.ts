import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcError, type RpcClient } from '../../../lib/client/rpcClient';
import type { ErrorCode } from '../../../lib/protocol/errors';
import { makeFilesProject, OUTSIDE_TEXT, SOURCE_TEXT, type FilesProject } from '../../fixtures/filesProject';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';

type Outcome = { ok: string } | { refused: ErrorCode };

interface PathCase {
  name: string;
  /** Relative to the project unless it starts with `/`; `{outside}` becomes the outside folder. */
  path: string;
  /** The answer with `--allow-external-files` off; `external` when on and the call asks for it. */
  expected: Outcome;
  external?: Outcome;
  /** Another projectDirectory than the project's own. */
  projectDirectory?: (files: FilesProject) => string;
}

const ok = (text: string): Outcome => ({ ok: text });
const refused = (code: ErrorCode): Outcome => ({ refused: code });

/** FILE-3, SEC-2: every path from the network, as files.readContent and files.readBinary see it. */
const PATH_CASES: PathCase[] = [
  { name: 'a plain relative path', path: 'src/answer.ts', expected: ok(SOURCE_TEXT) },
  { name: 'a path with ./ and doubled slashes', path: './src//answer.ts', expected: ok(SOURCE_TEXT) },
  {
    name: '.. escaping the project',
    path: '../outside/secret.txt',
    expected: refused('invalid_params'),
    external: refused('invalid_params'),
  },
  { name: '.. that would land back inside', path: 'src/../src/answer.ts', expected: refused('invalid_params') },
  {
    name: 'an encoded .. (never decoded: a literal name)',
    path: '%2e%2e/%2e%2e/outside/secret.txt',
    expected: refused('not_found'),
  },
  {
    name: 'an encoded .. that names a real folder stays inside',
    path: '%2e%2e/decoy.txt',
    expected: ok('a folder literally named %2e%2e\n'),
  },
  {
    name: 'an absolute path outside',
    path: '{outside}/secret.txt',
    expected: refused('invalid_params'),
    external: ok(OUTSIDE_TEXT),
  },
  {
    name: 'an absolute path to a secret outside',
    path: '{outside}/.env',
    expected: refused('invalid_params'),
    external: refused('secret_file'),
  },
  { name: 'backslashes', path: 'src\\answer.ts', expected: refused('invalid_params') },
  { name: 'backslash dot-dot', path: '..\\outside\\secret.txt', expected: refused('invalid_params') },
  { name: 'a NUL byte', path: 'src/answer.ts\0.png', expected: refused('invalid_params') },
  { name: 'a symlink inside the project', path: 'link-inside.ts', expected: ok(SOURCE_TEXT) },
  {
    name: 'a symlink escaping the project',
    path: 'link-outside.txt',
    expected: refused('not_found'),
    external: ok(OUTSIDE_TEXT),
  },
  {
    name: 'a file under a symlinked folder outside',
    path: 'link-outside-dir/secret.txt',
    expected: refused('not_found'),
    external: ok(OUTSIDE_TEXT),
  },
  { name: 'a broken symlink', path: 'link-broken', expected: refused('not_found') },
  { name: 'a missing file', path: 'src/missing.ts', expected: refused('not_found') },
  { name: '.env', path: '.env', expected: refused('secret_file'), external: refused('secret_file') },
  { name: '.env.local', path: '.env.local', expected: refused('secret_file') },
  { name: 'a nested .env.production', path: 'nested/.env.production', expected: refused('secret_file') },
  { name: '.ENV in another case', path: '.ENV', expected: refused('secret_file') },
  { name: '.git internals', path: '.git/config', expected: refused('secret_file'), external: refused('secret_file') },
  { name: '.ssh keys', path: '.ssh/id_ed25519', expected: refused('secret_file') },
  { name: 'a symlink to .env', path: 'env-alias', expected: refused('secret_file'), external: refused('secret_file') },
  {
    name: 'a folder that is not a project',
    path: 'secret.txt',
    projectDirectory: (f) => f.outside,
    expected: refused('not_found'),
    external: refused('not_found'),
  },
  {
    name: 'a subfolder of a project as projectDirectory',
    path: 'answer.ts',
    projectDirectory: (f) => path.join(f.project, 'src'),
    expected: refused('not_found'),
  },
  {
    name: 'a project written with a trailing slash',
    path: 'src/answer.ts',
    projectDirectory: (f) => f.project + '/',
    expected: refused('not_found'),
  },
];

async function outcomeOf(call: Promise<string>): Promise<Outcome> {
  try {
    return { ok: await call };
  } catch (error) {
    if (error instanceof RpcError && error.code !== 'closed' && error.code !== 'invalid_response')
      return { refused: error.code };
    throw error;
  }
}

describe.each([
  { flag: false, label: 'without --allow-external-files' },
  { flag: true, label: 'with --allow-external-files' },
])('FILE-3 path rules $label', ({ flag }) => {
  let files: FilesProject;
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let client: RpcClient;

  beforeAll(async () => {
    files = makeFilesProject();
    dirs = makeRuntimeDirs(0);
    runtime = await startRuntimeProcess({
      dataDir: dirs.dataDir,
      projectDirs: [files.project],
      wrap: (command) => (flag ? [...command, '--allow-external-files'] : command),
    });
    client = await runtime.connect();
  });
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    dirs?.remove();
    files?.remove();
  });

  const resolveCase = (c: PathCase) => ({
    projectDirectory: c.projectDirectory ? c.projectDirectory(files) : files.project,
    path: c.path.replace('{outside}', files.outside),
  });

  it.each(PATH_CASES)('FILE-3 files.readContent: $name', async (c) => {
    const where = resolveCase(c);
    const withoutAsking = await outcomeOf(client.call('files.readContent', where).then((r) => r.text));
    const asking = await outcomeOf(
      client.call('files.readContent', { ...where, allowExternalFile: true }).then((r) => r.text),
    );
    expect(withoutAsking).toEqual(c.expected);
    expect(asking).toEqual(flag ? (c.external ?? c.expected) : c.expected);
  });

  it.each(PATH_CASES)('FILE-3 files.readBinary: $name', async (c) => {
    const where = resolveCase(c);
    const read = (allowExternalFile: boolean) =>
      outcomeOf(
        client
          .callBinary('files.readBinary', { ...where, offset: 0, allowExternalFile })
          .then((r) => Buffer.from(r.data).toString('utf8')),
      );
    expect(await read(false)).toEqual(c.expected);
    expect(await read(true)).toEqual(flag ? (c.external ?? c.expected) : c.expected);
  });

  it('FILE-3 files.list leaves out hidden secrets and links that lead out of the project, folders first', async () => {
    const { entries } = await client.call('files.list', { projectDirectory: files.project, path: '' });
    expect(entries.map((e) => `${e.kind === 'directory' ? 'd' : 'f'} ${e.name}`)).toEqual([
      'd %2e%2e',
      'd nested',
      'd src',
      'f .gitignore',
      'f link-inside.ts',
      'f README.md',
    ]);
    expect((await client.call('files.list', { projectDirectory: files.project, path: 'nested' })).entries).toEqual([]);
    const src = await client.call('files.list', { projectDirectory: files.project, path: 'src' });
    expect(src.entries).toEqual([
      { name: 'answer.ts', kind: 'file', size: SOURCE_TEXT.length, modifiedAt: expect.any(Number) },
      { name: 'Zeta.md', kind: 'file', size: 7, modifiedAt: expect.any(Number) },
    ]);
  });

  it.each([
    { path: '.git', code: 'secret_file' },
    { path: '.ssh', code: 'secret_file' },
    { path: 'link-outside-dir', code: 'not_found' },
    { path: '..', code: 'invalid_params' },
    { path: '/', code: 'invalid_params' },
    { path: 'src/answer.ts', code: 'invalid_params' },
  ] as const)('FILE-3 files.list refuses $path with $code', async ({ path: requestPath, code }) => {
    expect(
      await outcomeOf(
        client.call('files.list', { projectDirectory: files.project, path: requestPath }).then(() => 'listed'),
      ),
    ).toEqual(refused(code));
  });
});
