import crypto from 'node:crypto';
import path from 'node:path';
import type { UsageReading } from '../../../../lib/protocol/agents';
import type { ClaudeAccount, ClaudeAccountStatus } from '../../../../lib/protocol/claude';
import { notFound } from '../../errors';
import type { Logger } from '../../log';
import type { Db } from '../../store/database';
import { ClaudeAccountStore } from './claudeAccountStore';
import { ClaudeApiKeyFiles, moveDatabaseKeysToFiles } from './claudeApiKeyFiles';
import {
  accountsRoot,
  createAccountFolder,
  DEFAULT_CLAUDE_ACCOUNT,
  linkMainEntries,
  mainClaudeFolder,
  removeAccountFolder,
  signInCommand,
} from './claudeAccounts';

/**
 * Claude accounts (ACC-2): the main Claude folder is `default`; each added one is a folder of its
 * own under the data folder with links into the main one. Runs take the active account's folder
 * and API key; every history read takes the main folder.
 */
export class ClaudeAccounts {
  private readonly store: ClaudeAccountStore;
  private readonly apiKeys: ClaudeApiKeyFiles;
  readonly mainFolder: string;
  /** The newest reading of each window, by account (ACC-7); the durable samples live elsewhere. */
  private readonly readings = new Map<string, Map<string, UsageReading>>();
  /** The last sign-in check of each account, shown at once while the next one runs (it starts Claude Code). */
  private readonly checked = new Map<string, { status: ClaudeAccountStatus; checkedAt: number }>();

  constructor(
    db: Db,
    private readonly dataDir: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly log: Logger,
  ) {
    this.store = new ClaudeAccountStore(db);
    this.apiKeys = new ClaudeApiKeyFiles(dataDir);
    const moved = moveDatabaseKeysToFiles(db, this.apiKeys);
    if (moved > 0) log.info('claude api keys moved out of the database', { count: moved });
    this.mainFolder = mainClaudeFolder(env);
  }

  folderOf(accountId: string): string {
    return accountId === DEFAULT_CLAUDE_ACCOUNT ? this.mainFolder : path.join(accountsRoot(this.dataDir), accountId);
  }

  private require(accountId: string): void {
    if (!this.store.has(accountId)) throw notFound('No such Claude account.', { accountId });
  }

  list(): { accounts: ClaudeAccount[]; activeAccountId: string } {
    const active = this.store.activeAccountId();
    const rows = [{ id: DEFAULT_CLAUDE_ACCOUNT, label: 'Main Claude folder' }, ...this.store.accounts()];
    return { accounts: rows.map((row) => this.describe(row.id, row.label, active)), activeAccountId: active };
  }

  private describe(id: string, label: string, active: string): ClaudeAccount {
    return {
      id,
      label,
      folder: this.folderOf(id),
      active: id === active,
      hasApiKey: this.apiKeys.has(id),
      // The main folder is what `claude` uses anyway, unless the desktop names another one.
      signInCommand: signInCommand(
        id === DEFAULT_CLAUDE_ACCOUNT && !this.env.CLAUDE_CONFIG_DIR ? null : this.folderOf(id),
      ),
      usage: [...(this.readings.get(id)?.values() ?? [])],
      lastStatus: this.checked.get(id) ?? null,
    };
  }

  /** Keeps what a sign-in check said (ACC-2). */
  rememberStatus(accountId: string, status: ClaudeAccountStatus, checkedAt = Date.now()): void {
    if (this.store.has(accountId)) this.checked.set(accountId, { status, checkedAt });
  }

  add(label: string | undefined): ClaudeAccount {
    const id = crypto.randomUUID();
    const count = this.store.accounts().length;
    createAccountFolder(this.mainFolder, this.folderOf(id), this.log);
    this.store.insert({ id, label: label ?? `Claude account ${count + 1}`, createdAt: Date.now() });
    this.log.info('claude account added', { accountId: id });
    return this.describe(id, label ?? `Claude account ${count + 1}`, this.store.activeAccountId());
  }

  remove(accountId: string): void {
    this.require(accountId);
    this.store.delete(accountId);
    this.apiKeys.remove(accountId);
    removeAccountFolder(this.folderOf(accountId));
    this.readings.delete(accountId);
    this.checked.delete(accountId);
    this.log.info('claude account removed', { accountId });
  }

  activate(accountId: string): void {
    this.require(accountId);
    this.store.activate(accountId);
  }

  /**
   * The key is kept in its owner-only file (ACC-10) and handed to Claude Code as
   * ANTHROPIC_API_KEY; it is never logged (SEC-4).
   */
  setApiKey(accountId: string, apiKey: string | null): void {
    this.require(accountId);
    if (apiKey === null) this.apiKeys.remove(accountId);
    else this.apiKeys.write(accountId, apiKey);
    // What it said was about the old key.
    this.checked.delete(accountId);
    this.log.info('claude account api key', { accountId, set: apiKey !== null });
  }

  activeAccountId(): string {
    return this.store.activeAccountId();
  }

  /** The environment a run of this account (the active one by default) gets on top of the runtime's. */
  runEnvironment(accountId: string = this.store.activeAccountId()): { accountId: string; env: NodeJS.ProcessEnv } {
    this.require(accountId);
    const env: NodeJS.ProcessEnv = {};
    if (accountId !== DEFAULT_CLAUDE_ACCOUNT) {
      env.CLAUDE_CONFIG_DIR = this.folderOf(accountId);
      // Entries that appeared in the main folder since the add are linked before the run.
      linkMainEntries(this.mainFolder, this.folderOf(accountId), this.log);
    }
    const apiKey = this.apiKeys.read(accountId);
    if (apiKey !== null) env.ANTHROPIC_API_KEY = apiKey;
    return { accountId, env };
  }

  /** Every history read runs with the main folder, whichever account is active (ACC-2). */
  historyEnvironment(): NodeJS.ProcessEnv {
    return this.env.CLAUDE_CONFIG_DIR ? { CLAUDE_CONFIG_DIR: this.mainFolder } : {};
  }

  noteReading(reading: UsageReading): void {
    const windows = this.readings.get(reading.accountKey) ?? new Map<string, UsageReading>();
    windows.set(reading.window, reading);
    this.readings.set(reading.accountKey, windows);
  }
}
