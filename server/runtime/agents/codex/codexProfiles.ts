import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parse, stringify, type TomlTable } from 'smol-toml';
import { invalidParams } from '../../errors';
import type { Db } from '../../store/database';
import type { CodexProfile as CodexProfileInfo } from '../../../../lib/protocol/accounts';

/**
 * What every profile runs with before the user's own TOML is merged in: no update checks,
 * commands sandboxed to the project folder (ACC-5: full access only when the user picks it for a
 * session, per turn), and the agent asks when a command wants more (answered from the app).
 */
const BASE_CONFIG: TomlTable = {
  approval_policy: 'on-request',
  sandbox_mode: 'workspace-write',
  check_for_update_on_startup: false,
};

function isTable(value: unknown): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** Deep merge: tables merge key by key; anything else in `extra` wins. */
function mergeTables(base: TomlTable, extra: TomlTable): TomlTable {
  const merged: TomlTable = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = merged[key];
    merged[key] = isTable(current) && isTable(value) ? mergeTables(current, value) : value;
  }
  return merged;
}

/** Our base with HBCODE_CODEX_CONFIG_TOML merged over it: what every profile runs with. */
export function profileConfig(extraToml: string | undefined): TomlTable {
  let extra: TomlTable = {};
  if (extraToml?.trim()) {
    try {
      extra = parse(extraToml);
    } catch (error) {
      throw invalidParams(`HBCODE_CODEX_CONFIG_TOML is not valid TOML: ${(error as Error).message}`);
    }
  }
  return mergeTables(BASE_CONFIG, extra);
}

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

/** One value as TOML text (smol-toml writes whole documents: write `v = value` and keep the value). */
function tomlValue(value: unknown): string {
  const line = stringify({ v: value });
  if (!line.startsWith('v = ')) throw invalidParams('HBCODE_CODEX_CONFIG_TOML: arrays of tables are not supported.');
  return line.slice(4).trimEnd();
}

/**
 * The configuration as `-c dotted.key=value` overrides on Codex's command line, so the runtime
 * never writes a file inside the Codex home (SES-2, STO-1): tables become dotted keys, every leaf
 * value is TOML text.
 */
export function configOverrides(config: TomlTable, prefix: string[] = []): string[] {
  return Object.entries(config).flatMap(([key, value]) => {
    const keyPath = [...prefix, BARE_KEY.test(key) ? key : JSON.stringify(key)];
    if (isTable(value)) return configOverrides(value, keyPath);
    return ['-c', `${keyPath.join('.')}=${tomlValue(value)}`];
  });
}

export interface CodexProfile {
  id: string;
  /** CODEX_HOME: `codex/profiles/<id>/home` under the data folder. */
  home: string;
  /**
   * The app-server's TMPDIR, the home's sibling `codex/profiles/<id>/tmp` (SBX-1). Codex refuses
   * to create its sandbox helper links (`<home>/tmp/arg0/…/codex-linux-sandbox`, which bubblewrap
   * runs by name) in a home that lies under its temporary folder; its temporary folder is its own
   * TMPDIR, so with this one the home is never under it, wherever the data folder is.
   */
  tmp: string;
}

interface RawProfile {
  id: string;
  name: string;
  status: CodexProfileInfo['status'];
  auth_mode: string | null;
  email: string | null;
  plan_type: string | null;
  status_reason: string | null;
  created_at: number;
  checked_at: number | null;
}

const toInfo = (r: RawProfile): CodexProfileInfo => ({
  id: r.id,
  name: r.name,
  status: r.status,
  authMode: r.auth_mode,
  email: r.email,
  planType: r.plan_type,
  statusReason: r.status_reason,
  createdAt: r.created_at,
  checkedAt: r.checked_at,
});

/** What an app-server reported about a profile's account (ACC-1). */
export type CodexAccountState = Pick<CodexProfileInfo, 'status' | 'authMode' | 'email' | 'planType' | 'statusReason'>;

/** Where the profiles' homes live, under the data folder (never served either, FILE-6). */
export function codexProfilesRoot(dataDir: string): string {
  return path.join(dataDir, 'codex', 'profiles');
}

/**
 * App-owned Codex profiles (ACC-1): a stable lowercase UUID and a home folder under the data
 * folder. The runtime creates and removes the folder and opens no file inside it but the conversation
 * files a person lists and picks (SRC-1, SRC-3).
 */
export class CodexProfiles {
  private readonly stmts;

  constructor(
    db: Db,
    private readonly dataDir: string,
  ) {
    this.stmts = {
      first: db.prepare<[], RawProfile>('SELECT * FROM codex_profiles ORDER BY created_at, id LIMIT 1'),
      all: db.prepare<[], RawProfile>('SELECT * FROM codex_profiles ORDER BY created_at, id'),
      get: db.prepare<[string], RawProfile>('SELECT * FROM codex_profiles WHERE id = ?'),
      insert: db.prepare("INSERT INTO codex_profiles (id, name, status, created_at) VALUES (?, ?, 'signed_out', ?)"),
      rename: db.prepare('UPDATE codex_profiles SET name = ? WHERE id = ?'),
      state: db.prepare(
        'UPDATE codex_profiles SET status = @status, auth_mode = @authMode, email = @email, plan_type = @planType, status_reason = @statusReason, checked_at = @checkedAt WHERE id = @id',
      ),
      remove: db.prepare('DELETE FROM codex_profiles WHERE id = ?'),
      links: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM codex_session_links WHERE profile_id = ?'),
    };
  }

  private folderOf(id: string): string {
    return path.join(codexProfilesRoot(this.dataDir), id);
  }

  private profileOf(id: string): CodexProfile {
    return { id, home: path.join(this.folderOf(id), 'home'), tmp: path.join(this.folderOf(id), 'tmp') };
  }

  /** Every profile's home folders (SRC-1). */
  all(): CodexProfile[] {
    return this.list().map((info) => this.profileOf(info.id));
  }

  list(): CodexProfileInfo[] {
    if (!this.stmts.first.get()) this.defaultProfile();
    return this.stmts.all.all().map(toInfo);
  }

  info(id: string): CodexProfileInfo | undefined {
    const raw = this.stmts.get.get(id);
    return raw && toInfo(raw);
  }

  /** The default profile, created on first use. */
  defaultProfile(): CodexProfile {
    return this.profileOf(this.stmts.first.get()?.id ?? this.add('Codex').id);
  }

  /** A profile by id, or the default one for null. */
  profile(id: string | null): CodexProfile | undefined {
    if (id === null) return this.defaultProfile();
    return this.stmts.get.get(id) ? this.profileOf(id) : undefined;
  }

  add(name: string): CodexProfileInfo {
    const id = crypto.randomUUID().toLowerCase();
    this.stmts.insert.run(id, name, Date.now());
    return this.info(id)!;
  }

  rename(id: string, name: string): void {
    this.stmts.rename.run(name, id);
  }

  setState(id: string, state: CodexAccountState): CodexProfileInfo | undefined {
    this.stmts.state.run({ id, ...state, checkedAt: Date.now() });
    return this.info(id);
  }

  /** Sessions whose Codex thread lives in this profile's home. */
  linkCount(id: string): number {
    return this.stmts.links.get(id)!.n;
  }

  /** Deletes the row and the whole profile folder (never opening a file in it). */
  remove(id: string): void {
    this.stmts.remove.run(id);
    fs.rmSync(this.folderOf(id), { recursive: true, force: true });
  }

  /** Creates the home folder; Codex fills it. Its configuration arrives as command-line overrides. */
  prepareHome(profile: CodexProfile): void {
    fs.mkdirSync(profile.home, { recursive: true, mode: 0o700 });
    fs.mkdirSync(profile.tmp, { recursive: true, mode: 0o700 });
  }
}
