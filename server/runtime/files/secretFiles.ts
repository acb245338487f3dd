import fs from 'node:fs';
import path from 'node:path';
import { RuntimeError } from '../errors';
import { isInside } from './pathInside';
import { readFully } from './readChunk';
import {
  ALLOW_SECRET_FILES_FLAG,
  HARD_LINK_TYPE,
  PRIVATE_KEY_TYPE,
  SECRET_FILE_TYPES,
  type SecretFileType,
} from './secretFileTypes';

/**
 * NOTE: upper then lower, not only lower: case-insensitive volumes fold `ſ` to `s` and `ß` to
 * `ss`, which lower-casing alone leaves as they are, so `.ſsh` would open `.ssh` unseen.
 */
export const foldCase = (name: string) => name.toUpperCase().toLowerCase();

type NameMatcher = (folded: string) => boolean;

interface CompiledPattern {
  type: SecretFileType;
  /** The names of the run, last one first (the lookup starts from the last). */
  reversed: NameMatcher[];
}

function nameMatcher(name: string): NameMatcher {
  const folded = foldCase(name);
  if (!folded.includes('*')) return (candidate) => candidate === folded;
  const escaped = folded.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  const pattern = new RegExp(`^${escaped.join('.*')}$`, 's');
  return (candidate) => pattern.test(candidate);
}

/** Patterns indexed by their last name when it is exact, so a path is checked in one pass over its names. */
const BY_LAST_NAME = new Map<string, CompiledPattern[]>();
const WITH_GLOB_LAST: CompiledPattern[] = [];
for (const type of SECRET_FILE_TYPES) {
  for (const pattern of type.patterns) {
    const names = pattern.split('/');
    const compiled: CompiledPattern = { type, reversed: names.map(nameMatcher).reverse() };
    const last = foldCase(names[names.length - 1]!);
    if (last.includes('*')) WITH_GLOB_LAST.push(compiled);
    else BY_LAST_NAME.set(last, [...(BY_LAST_NAME.get(last) ?? []), compiled]);
  }
}

/** Whether the names up to `end` (inclusive) end with the pattern's run. */
function endsWithRun(folded: readonly string[], end: number, pattern: CompiledPattern): boolean {
  if (end + 1 < pattern.reversed.length) return false;
  return pattern.reversed.every((matches, i) => matches(folded[end - i]!));
}

/** The credential type a path's names fall under (the file or a folder above it), or null. */
export function secretTypeOfNames(names: readonly string[]): SecretFileType | null {
  const folded = names.map(foldCase);
  for (let end = 0; end < folded.length; end++) {
    const candidates = [...(BY_LAST_NAME.get(folded[end]!) ?? []), ...WITH_GLOB_LAST];
    const hit = candidates.find((pattern) => endsWithRun(folded, end, pattern));
    if (hit) return hit.type;
  }
  return null;
}

/** How many bytes of a file's start are looked at for a private key. */
const KEY_SNIFF_BYTES = 4096;
/**
 * PEM and OpenSSH private keys (`-----BEGIN [RSA |EC |OPENSSH |ENCRYPTED |PGP ]PRIVATE KEY[ BLOCK]-----`),
 * at the start or after OpenSSL's `Bag Attributes` lines, and PuTTY's key files.
 */
/** A UTF-8 byte order mark as the bytes read as Latin-1 show it. */
const BOM = '(?:\u00EF\u00BB\u00BF)?';
const PRIVATE_KEY_START = new RegExp(
  String.raw`^${BOM}\s*(?:(?:Bag|Key) Attributes[\s\S]*?)?-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`,
);
const PUTTY_KEY_START = new RegExp(String.raw`^${BOM}\s*PuTTY-User-Key-File-\d+:`);

/** Whether the bytes a file starts with look like a private key. */
export function startsLikePrivateKey(head: Buffer): boolean {
  const text = head.toString('latin1');
  return PRIVATE_KEY_START.test(text) || PUTTY_KEY_START.test(text);
}

export type SecretRefusalReason = 'credential' | 'private_key' | 'hard_link' | 'runtime_data';

const RUNTIME_DATA_MESSAGE =
  "This is the runtime's own data (its database, keys and agents' sign-ins); it is never shown.";

const allowHint = (type: string) =>
  `To show files of this kind, start the runtime with ${ALLOW_SECRET_FILES_FLAG} ${type}.`;

/** A refusal with the stable code `secret_file` (FILE-6); `data.reason` says why, `data.secretType` what to opt in. */
function secretRefusal(
  reason: SecretRefusalReason,
  message: string,
  type: string | null,
  data?: Record<string, unknown>,
): RuntimeError {
  return new RuntimeError('secret_file', message, {
    ...data,
    reason,
    ...(type === null ? {} : { secretType: type, allowWith: `${ALLOW_SECRET_FILES_FLAG} ${type}` }),
  });
}

const RESOLVE_AGAIN_MS = 1000;

export interface SecretFilesOptions {
  /** Types the user let through (`--allow-secret-files`). */
  allowedTypes?: ReadonlySet<string>;
  /** Folders never served, whatever is allowed: the data folder and the agent homes under it. */
  protectedFolders?: readonly string[];
}

/**
 * The one secrets policy every read path asks (FILE-6, SEC-6, SEC-7): credential files by name
 * anywhere on the canonical path, the runtime's own folders wherever they lie, and, once a file
 * is open, more than one link or a private key's first bytes.
 */
export class SecretFiles {
  private readonly allowed: ReadonlySet<string>;
  private readonly protectedAsGiven: readonly string[];
  private protectedResolved: string[] | null = null;
  private complete = false;
  private resolvedAt = 0;

  constructor(options: SecretFilesOptions = {}) {
    this.allowed = options.allowedTypes ?? new Set();
    this.protectedAsGiven = (options.protectedFolders ?? []).map((folder) => path.resolve(folder));
  }

  /**
   * NOTE: each folder both as given and canonical; resolved on first use, since the data folder
   * is made after the options are read. One that does not exist yet (an agent's folder made on
   * first use) is looked up again at most once a second, not on every entry of a listing.
   */
  private protectedFolders(): readonly string[] {
    if (this.protectedResolved && (this.complete || Date.now() - this.resolvedAt < RESOLVE_AGAIN_MS))
      return this.protectedResolved;
    let complete = true;
    const folders = new Set(this.protectedAsGiven);
    for (const folder of this.protectedAsGiven) {
      try {
        folders.add(fs.realpathSync.native(folder));
      } catch {
        complete = false;
      }
    }
    this.protectedResolved = [...folders];
    this.complete = complete;
    this.resolvedAt = Date.now();
    return this.protectedResolved;
  }

  isAllowed(type: string): boolean {
    return this.allowed.has(type);
  }

  /** Why names (as asked, relative) may not be read, or null. */
  refusalOfNames(names: readonly string[], data?: Record<string, unknown>): RuntimeError | null {
    const type = secretTypeOfNames(names);
    if (!type || this.allowed.has(type.type)) return null;
    return secretRefusal(
      'credential',
      `This file is kept private: it holds ${type.holds}. ${allowHint(type.type)}`,
      type.type,
      data,
    );
  }

  /** Why an absolute, canonical path may not be read or listed, or null. */
  refusalOfPath(canonical: string, data?: Record<string, unknown>): RuntimeError | null {
    if (this.protectedFolders().some((folder) => isInside(folder, canonical)))
      return secretRefusal('runtime_data', RUNTIME_DATA_MESSAGE, null, data);
    return this.refusalOfNames(
      canonical.split(path.sep).filter((name) => name !== ''),
      data,
    );
  }

  /** Whether a canonical path may be read or listed. */
  servesPath(canonical: string): boolean {
    return this.refusalOfPath(canonical) === null;
  }

  /**
   * Why an open regular file may not be read, or null: a second name (a hard link may stand for a
   * file outside the project, FILE-6) or a private key's first bytes under any name.
   */
  refusalOfOpenFile(fd: number, stat: fs.Stats, data?: Record<string, unknown>): RuntimeError | null {
    if (!stat.isFile()) return null;
    if (stat.nlink > 1 && !this.allowed.has(HARD_LINK_TYPE)) {
      return secretRefusal(
        'hard_link',
        `This file is kept private: it has ${stat.nlink} names on this computer (hard links), and another may be a secret outside the project. ${allowHint(HARD_LINK_TYPE)}`,
        HARD_LINK_TYPE,
        data,
      );
    }
    if (!this.allowed.has(PRIVATE_KEY_TYPE) && startsLikePrivateKey(readHead(fd, stat))) {
      return secretRefusal(
        'private_key',
        `This file is kept private: it starts like a private key. ${allowHint(PRIVATE_KEY_TYPE)}`,
        PRIVATE_KEY_TYPE,
        data,
      );
    }
    return null;
  }
}

function readHead(fd: number, stat: fs.Stats): Buffer {
  const head = Buffer.alloc(Math.min(KEY_SNIFF_BYTES, stat.size));
  return head.subarray(0, readFully(fd, head, 0));
}
