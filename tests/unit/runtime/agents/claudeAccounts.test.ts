import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createAccountFolder,
  linkMainEntries,
  PROJECTS_LINK_FAILED,
  removeAccountFolder,
  signInCommand,
} from '../../../../server/runtime/agents/claude/claudeAccounts';
import { silentLogger, type Logger } from '../../../../server/runtime/log';

const made: string[] = [];
function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A main Claude folder with sign-in entries, shared entries and a saved transcript. */
function mainFolder(): string {
  const main = tempDir('hbcode-claude-main-');
  fs.writeFileSync(path.join(main, '.claude.json'), '{"main":true}');
  fs.writeFileSync(path.join(main, '.credentials.json'), '{"token":"main"}');
  fs.mkdirSync(path.join(main, 'statsig'));
  fs.writeFileSync(path.join(main, 'settings.json'), '{"theme":"dark"}');
  fs.writeFileSync(path.join(main, 'CLAUDE.md'), 'be brief');
  fs.mkdirSync(path.join(main, 'projects', '-work-app'), { recursive: true });
  fs.writeFileSync(path.join(main, 'projects', '-work-app', 'saved.jsonl'), '{"type":"user"}\n');
  return main;
}

/** A path of exactly `length` characters under `root`, in folder names the system accepts. */
function folderOfLength(root: string, length: number): string {
  let folder = root;
  while (length - folder.length > 201) folder = path.join(folder, 'd'.repeat(200));
  return path.join(folder, 'e'.repeat(length - folder.length - 1));
}

function recordingLog(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return {
    ...silentLogger,
    warnings,
    warn: (message, fields) => warnings.push(`${message} ${JSON.stringify(fields)}`),
  };
}

describe('ACC-2 Claude account folders', () => {
  it('links every entry of the main folder except the sign-in entries, which the account keeps for itself', () => {
    const main = mainFolder();
    const account = path.join(tempDir('hbcode-data-'), 'claude', 'accounts', 'a1');
    createAccountFolder(main, account, silentLogger);
    expect(fs.readdirSync(account).sort()).toEqual(['CLAUDE.md', 'projects', 'settings.json']);
    for (const name of ['CLAUDE.md', 'projects', 'settings.json']) {
      expect(fs.lstatSync(path.join(account, name)).isSymbolicLink()).toBe(true);
      expect(fs.readlinkSync(path.join(account, name))).toBe(path.join(main, name));
    }
    // The transcripts every account saves are the main folder's.
    expect(fs.readFileSync(path.join(account, 'projects', '-work-app', 'saved.jsonl'), 'utf8')).toBe(
      '{"type":"user"}\n',
    );
  });

  it('creates projects in the main folder first when it has none', () => {
    const main = tempDir('hbcode-claude-main-');
    const account = path.join(tempDir('hbcode-data-'), 'a2');
    createAccountFolder(main, account, silentLogger);
    expect(fs.statSync(path.join(main, 'projects')).isDirectory()).toBe(true);
    expect(fs.readlinkSync(path.join(account, 'projects'))).toBe(path.join(main, 'projects'));
  });

  it('never replaces an entry the account folder already has, and links entries new in the main folder later', () => {
    const main = mainFolder();
    const account = path.join(tempDir('hbcode-data-'), 'a3');
    fs.mkdirSync(account);
    fs.writeFileSync(path.join(account, 'settings.json'), '{"own":true}');
    linkMainEntries(main, account, silentLogger);
    expect(fs.lstatSync(path.join(account, 'settings.json')).isSymbolicLink()).toBe(false);
    expect(fs.readFileSync(path.join(account, 'settings.json'), 'utf8')).toBe('{"own":true}');
    fs.mkdirSync(path.join(main, 'agents'));
    linkMainEntries(main, account, silentLogger);
    expect(fs.readlinkSync(path.join(account, 'agents'))).toBe(path.join(main, 'agents'));
    expect(fs.readFileSync(path.join(account, 'settings.json'), 'utf8')).toBe('{"own":true}');
  });

  it('fails the add when the projects link cannot be made, and leaves no folder behind', () => {
    const main = mainFolder();
    // The system refuses any path of 4096 bytes or more: the folder fits, its `projects` link does not.
    const account = folderOfLength(tempDir('hbcode-data-'), 4096 - '/projects'.length);
    expect(() => createAccountFolder(main, account, silentLogger)).toThrow(PROJECTS_LINK_FAILED);
    expect(fs.existsSync(account)).toBe(false);
  });

  it('a failed link of another entry only warns, and the add goes on', () => {
    const main = mainFolder();
    const long = 'y'.repeat(200);
    fs.writeFileSync(path.join(main, long), '');
    const account = folderOfLength(tempDir('hbcode-data-'), 4000);
    const log = recordingLog();
    createAccountFolder(main, account, log);
    expect(fs.lstatSync(path.join(account, 'projects')).isSymbolicLink()).toBe(true);
    expect(fs.existsSync(path.join(account, long))).toBe(false);
    expect(log.warnings).toHaveLength(1);
    expect(log.warnings[0]).toContain('ENAMETOOLONG');
  });

  it('removal deletes the links without following them: a file behind a link survives, the account’s own entries go', () => {
    const main = mainFolder();
    const account = path.join(tempDir('hbcode-data-'), 'a7');
    createAccountFolder(main, account, silentLogger);
    fs.writeFileSync(path.join(account, '.credentials.json'), '{"token":"added"}');
    fs.mkdirSync(path.join(account, 'statsig'));
    fs.writeFileSync(path.join(account, 'statsig', 'cache'), 'x');
    const planted = path.join(main, 'projects', '-work-app', 'planted.jsonl');
    fs.writeFileSync(planted, 'keep me');
    removeAccountFolder(account);
    expect(fs.existsSync(account)).toBe(false);
    expect(fs.readFileSync(planted, 'utf8')).toBe('keep me');
    expect(fs.readFileSync(path.join(main, 'settings.json'), 'utf8')).toBe('{"theme":"dark"}');
    expect(fs.readFileSync(path.join(main, '.credentials.json'), 'utf8')).toBe('{"token":"main"}');
  });

  it('names the exact desktop sign-in command, quoted for the shell', () => {
    expect(signInCommand(null)).toBe('claude /login');
    expect(signInCommand('/data/claude/accounts/a1')).toBe('CLAUDE_CONFIG_DIR=/data/claude/accounts/a1 claude /login');
    expect(signInCommand("/My Data/it's")).toBe(`CLAUDE_CONFIG_DIR='/My Data/it'\\''s' claude /login`);
  });
});
