import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SecretFiles, secretTypeOfNames, startsLikePrivateKey } from '../../../../server/runtime/files/secretFiles';
import { parseSecretTypes, SECRET_FILE_TYPES } from '../../../../server/runtime/files/secretFileTypes';
import { RuntimeError } from '../../../../server/runtime/errors';
import { makeTempDir } from '../../../fixtures/tempDir';

const typeOf = (relative: string) => secretTypeOfNames(relative.split('/'))?.type ?? null;

// FILE-6: names match as a case-insensitive file system compares them, which folds more than
// lower-casing does: on such a volume `.ſsh` (long s) and `.ßh` open `.ssh`.
describe('FILE-6 credential names ignore case the way case-insensitive file systems do', () => {
  it('FILE-6 every case spelling of a credential name is refused, also through letters that fold to ASCII', () => {
    const spellings = [
      '.env',
      '.ENV',
      '.Env.local',
      '.GIT',
      '.Git',
      '.SSH',
      '.\u017Fsh',
      '.\u00DFh',
      '.\u212Aube',
      '.NPMRC',
      '.env.PRODUCTION',
      '.Git-Credentials',
    ];
    expect(spellings.filter((name) => typeOf(name) === null)).toEqual([]);
    expect(typeOf('docs/.\u017Fsh/id_ed25519')).toBe('ssh');
  });

  it('FILE-6 ordinary dotfiles and names that only resemble a credential stay served', () => {
    const visible = [
      '.gitignore',
      '.github',
      '.editorconfig',
      '.gitattributes',
      '.environment',
      'env',
      '.envrc',
      'git',
      '.sshd_config',
      '.prettierrc',
      '.config',
      '.config/gh/config.yml',
      '.codex/config.toml',
      'auth.json',
      'src/config',
      '.claude/settings.json',
      'notes/history.md',
      'cert.pem',
    ];
    expect(visible.filter((name) => typeOf(name) !== null)).toEqual([]);
  });
});

describe('FILE-6 the credential files of developer tools, by type', () => {
  it.each([
    ['.git-credentials', 'git-credentials'],
    ['.config/git/credentials', 'git-credentials'],
    ['.gitconfig', 'gitconfig'],
    ['.config/gh/hosts.yml', 'gh'],
    ['.npmrc', 'npmrc'],
    ['.pypirc', 'pip'],
    ['.config/pip/pip.conf', 'pip'],
    ['.cargo/credentials.toml', 'cargo'],
    ['.docker/config.json', 'docker'],
    ['.kube/config', 'kube'],
    ['.aws/credentials', 'aws'],
    ['.config/gcloud/application_default_credentials.json', 'gcloud'],
    ['.azure/msal_token_cache.json', 'azure'],
    ['.ssh/id_ed25519', 'ssh'],
    ['backup/id_rsa', 'ssh'],
    ['.gnupg/private-keys-v1.d/x.key', 'gpg'],
    ['.codex/auth.json', 'codex'],
    ['.claude/.credentials.json', 'claude'],
    ['.claude.json', 'claude'],
    ['.bash_history', 'history'],
    ['.local/share/fish/fish_history', 'history'],
    ['.netrc', 'netrc'],
    ['.pgpass', 'pgpass'],
    ['release/upload.jks', 'keystore'],
    ['vault/.vault-token', 'vault'],
  ])('FILE-6 %s is %s', (relative, type) => {
    expect(typeOf(relative)).toBe(type);
  });

  it('FILE-6 every type has what it holds in words and at least one pattern', () => {
    for (const type of SECRET_FILE_TYPES) {
      expect(type.holds.length).toBeGreaterThan(5);
      expect(type.patterns.length).toBeGreaterThan(0);
    }
  });

  it('FILE-6 --allow-secret-files takes known types and refuses a typo with the list', () => {
    expect([...parseSecretTypes('gitconfig, NPMRC,hardlink')]).toEqual(['gitconfig', 'npmrc', 'hardlink']);
    expect(() => parseSecretTypes('gitconfig,npmrcc')).toThrow(/unknown type "npmrcc".*known types: env, git/);
  });

  it('FILE-6 an opted-in type passes, the others are still refused with their type and the flag', () => {
    const policy = new SecretFiles({ allowedTypes: new Set(['gitconfig']) });
    expect(policy.refusalOfNames(['.gitconfig'])).toBeNull();
    const refusal = policy.refusalOfNames(['.npmrc']);
    expect(refusal).toBeInstanceOf(RuntimeError);
    expect(refusal?.code).toBe('secret_file');
    expect(refusal?.data).toMatchObject({
      reason: 'credential',
      secretType: 'npmrc',
      allowWith: '--allow-secret-files npmrc',
    });
    expect(refusal?.message).toMatch(/npm's registry tokens/);
  });
});

describe('FILE-6 private keys by their first bytes', () => {
  it.each([
    '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n',
    '-----BEGIN RSA PRIVATE KEY-----\n',
    '-----BEGIN PRIVATE KEY-----\n',
    '-----BEGIN ENCRYPTED PRIVATE KEY-----\n',
    '-----BEGIN EC PRIVATE KEY-----\n',
    '-----BEGIN PGP PRIVATE KEY BLOCK-----\n',
    '\uFEFF\n  -----BEGIN DSA PRIVATE KEY-----\n',
    'Bag Attributes\n    localKeyID: 01 02\n    friendlyName: me\nKey Attributes: <No Attributes>\n-----BEGIN PRIVATE KEY-----\n',
    'PuTTY-User-Key-File-3: ssh-ed25519\n',
  ])('FILE-6 %j starts like a private key', (head) => {
    expect(startsLikePrivateKey(Buffer.from(head))).toBe(true);
  });

  it.each([
    '-----BEGIN CERTIFICATE-----\n',
    '-----BEGIN PUBLIC KEY-----\n',
    '# How to make a key\n\nRun ssh-keygen; the file starts with -----BEGIN OPENSSH PRIVATE KEY-----\n',
    'ssh-ed25519 AAAAC3Nza me@host\n',
  ])('FILE-6 %j does not', (head) => {
    expect(startsLikePrivateKey(Buffer.from(head))).toBe(false);
  });
});

describe('FILE-6 checks of an open file and of the runtime folders', () => {
  let dir: string;
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const refusalOf = (policy: SecretFiles, file: string) => {
    const fd = fs.openSync(file, 'r');
    try {
      return policy.refusalOfOpenFile(fd, fs.fstatSync(fd));
    } finally {
      fs.closeSync(fd);
    }
  };

  it('FILE-6 a hard-linked file and a private key are refused unless their type is opted in', () => {
    dir = makeTempDir('hbcode-secret-open-');
    fs.writeFileSync(path.join(dir, 'plain.txt'), 'hello\n');
    fs.writeFileSync(path.join(dir, 'innocent.txt'), '-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n');
    fs.linkSync(path.join(dir, 'plain.txt'), path.join(dir, 'second-name.txt'));
    fs.writeFileSync(path.join(dir, 'alone.txt'), 'alone\n');
    const strict = new SecretFiles();
    expect(refusalOf(strict, path.join(dir, 'alone.txt'))).toBeNull();
    expect(refusalOf(strict, path.join(dir, 'second-name.txt'))?.data).toMatchObject({
      reason: 'hard_link',
      secretType: 'hardlink',
    });
    expect(refusalOf(strict, path.join(dir, 'innocent.txt'))?.data).toMatchObject({
      reason: 'private_key',
      secretType: 'private-key',
    });
    const lenient = new SecretFiles({ allowedTypes: new Set(['hardlink', 'private-key']) });
    expect(refusalOf(lenient, path.join(dir, 'second-name.txt'))).toBeNull();
    expect(refusalOf(lenient, path.join(dir, 'innocent.txt'))).toBeNull();
  });

  it('FILE-6 a protected folder is refused by its canonical path and through a link, whatever is opted in', () => {
    dir = makeTempDir('hbcode-secret-data-');
    const data = path.join(dir, 'data');
    fs.mkdirSync(data);
    fs.symlinkSync(data, path.join(dir, 'data-link'));
    const policy = new SecretFiles({
      allowedTypes: new Set(['gitconfig', 'hardlink', 'private-key']),
      protectedFolders: [path.join(dir, 'data-link')],
    });
    expect(policy.refusalOfPath(path.join(data, 'hbcode.db'))?.data).toMatchObject({ reason: 'runtime_data' });
    expect(policy.refusalOfPath(data)?.code).toBe('secret_file');
    expect(policy.servesPath(path.join(dir, 'database.md'))).toBe(true);
    expect(policy.servesPath(dir)).toBe(true);
  });
});
