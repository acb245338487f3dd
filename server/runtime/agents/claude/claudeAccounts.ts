import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { unavailable } from '../../errors';
import type { Logger } from '../../log';
import { OWNER_ONLY_DIR_MODE } from '../../store/ownerOnly';

/** The account of the main Claude folder (ACC-2). */
export const DEFAULT_CLAUDE_ACCOUNT = 'default';

/**
 * The sign-in entries an added account keeps for itself (ACC-2): Claude's global config and its
 * lock, the credentials, their backups and statsig. Every other top-level entry is a link.
 */
const OWN_ENTRIES = new Set(['.claude.json', '.claude.json.lock', '.credentials.json', 'backups', 'statsig']);

export function isOwnEntry(name: string): boolean {
  return OWN_ENTRIES.has(name) || name.startsWith('.claude.json.backup') || name.startsWith('.credentials.json.');
}

/** The main Claude folder: CLAUDE_CONFIG_DIR when the desktop has it, else ~/.claude. */
export function mainClaudeFolder(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLAUDE_CONFIG_DIR ? path.resolve(env.CLAUDE_CONFIG_DIR) : path.join(os.homedir(), '.claude');
}

export function accountsRoot(dataDir: string): string {
  return path.join(dataDir, 'claude', 'accounts');
}

export const PROJECTS_LINK_FAILED =
  'The new Claude account could not link the main Claude folder’s projects, where every account saves its conversations';

/**
 * Links every top-level entry of the main folder that the account folder lacks (ACC-2). An entry
 * the folder already has is never replaced. Without the `projects` link the account could not see
 * or save conversations, so that failure throws; any other only warns.
 */
export function linkMainEntries(mainDir: string, accountDir: string, log: Logger): void {
  // Every account saves into the main folder's projects: it exists before anything links to it.
  fs.mkdirSync(path.join(mainDir, 'projects'), { recursive: true });
  for (const name of fs.readdirSync(mainDir)) {
    if (isOwnEntry(name)) continue;
    const link = path.join(accountDir, name);
    if (entryExists(link)) continue;
    try {
      fs.symlinkSync(path.join(mainDir, name), link);
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      if (name === 'projects') throw unavailable(`${PROJECTS_LINK_FAILED} (${reason}).`, { reason });
      log.warn('claude account link failed', { entry: name, reason });
    }
  }
}

function entryExists(file: string): boolean {
  try {
    fs.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

/** Creates an account's folder and its links; a failed `projects` link leaves no folder behind. */
export function createAccountFolder(mainDir: string, accountDir: string, log: Logger): void {
  fs.mkdirSync(path.dirname(accountDir), { recursive: true, mode: OWNER_ONLY_DIR_MODE });
  fs.mkdirSync(accountDir, { mode: OWNER_ONLY_DIR_MODE });
  try {
    linkMainEntries(mainDir, accountDir, log);
  } catch (error) {
    removeAccountFolder(accountDir);
    throw error;
  }
}

/**
 * Removes an account's folder (ACC-2): links are unlinked, never followed, so nothing of the main
 * folder they point into is touched; the account's own entries go with it.
 */
export function removeAccountFolder(accountDir: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(accountDir);
  } catch {
    return;
  }
  if (!stat.isDirectory()) {
    fs.unlinkSync(accountDir);
    return;
  }
  for (const name of fs.readdirSync(accountDir)) removeAccountFolder(path.join(accountDir, name));
  fs.rmdirSync(accountDir);
}

/** The command that signs an account in on the desktop, once (ACC-2): `claude /login` in its folder. */
export function signInCommand(accountDir: string | null): string {
  if (accountDir === null) return 'claude /login';
  return `CLAUDE_CONFIG_DIR=${shellQuote(accountDir)} claude /login`;
}

function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
