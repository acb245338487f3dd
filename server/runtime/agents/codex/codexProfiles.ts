import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parse, stringify, type TomlTable } from 'smol-toml';
import { invalidParams } from '../../errors';
import type { Db } from '../../store/database';

/**
 * What every profile runs with before the user's own TOML is merged in: no update
 * checks, commands run without a sandbox in the project folder, and the agent asks when a
 * command wants more than that (answered from the app).
 */
const BASE_CONFIG: TomlTable = {
  approval_policy: 'on-request',
  sandbox_mode: 'danger-full-access',
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
  home: string;
}

/**
 * App-owned Codex profiles (ACC-1): a stable lowercase UUID and a home folder under the data
 * folder. The runtime creates the folder and never opens a file inside it.
 */
export class CodexProfiles {
  private readonly first;
  private readonly insert;

  constructor(
    db: Db,
    private readonly dataDir: string,
  ) {
    this.first = db.prepare<[], { id: string }>('SELECT id FROM codex_profiles ORDER BY created_at, id LIMIT 1');
    this.insert = db.prepare("INSERT INTO codex_profiles (id, status, created_at) VALUES (?, 'signed_out', ?)");
  }

  homeOf(id: string): string {
    return path.join(this.dataDir, 'codex', 'profiles', id, 'home');
  }

  /** The default profile, created on first use. */
  defaultProfile(): CodexProfile {
    let id = this.first.get()?.id;
    if (!id) {
      id = crypto.randomUUID().toLowerCase();
      this.insert.run(id, Date.now());
    }
    return { id, home: this.homeOf(id) };
  }

  /** Creates the home folder; Codex fills it. Its configuration arrives as command-line overrides. */
  prepareHome(profile: CodexProfile): void {
    fs.mkdirSync(profile.home, { recursive: true, mode: 0o700 });
  }
}

export interface CodexLink {
  profileId: string;
  threadId: string;
}

/** codex_session_links: which Codex thread of which profile an app session continues. */
export class CodexSessionLinks {
  private readonly get;
  private readonly insert;

  constructor(db: Db) {
    this.get = db.prepare<[string], { profile_id: string; codex_thread_id: string }>(
      "SELECT profile_id, codex_thread_id FROM codex_session_links WHERE app_session_id = ? AND status = 'available'",
    );
    this.insert = db.prepare("INSERT INTO codex_session_links (app_session_id, profile_id, codex_thread_id, status) VALUES (?, ?, ?, 'available')");
  }

  link(sessionId: string): CodexLink | undefined {
    const row = this.get.get(sessionId);
    return row && { profileId: row.profile_id, threadId: row.codex_thread_id };
  }

  save(sessionId: string, link: CodexLink): void {
    this.insert.run(sessionId, link.profileId, link.threadId);
  }
}
