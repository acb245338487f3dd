import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { invalidParams, RuntimeError } from '../../errors';
import { parseJsonWith } from '../../../../lib/shared/parseJsonWith';

/**
 * Codex conversation files ("rollouts", `sessions/YYYY/MM/DD/rollout-*.jsonl`) under the Codex
 * homes the runtime may show (SRC-1): listed for the person to pick one, and fingerprinted so a
 * timeline read from one notices the file changing under it (SRC-3). Every read is bounded: the
 * head of a file for its description, a head and a tail window for its fingerprint; never a whole
 * file, and never the conversation itself (that goes through Codex's app-server, SES-2).
 */

/** One Codex home the runtime may list: a runtime profile's, or the person's own. */
export interface CodexHome {
  /** The runtime profile whose home it is; null for the person's own `~/.codex` or `$CODEX_HOME`. */
  profileId: string | null;
  home: string;
}

export interface RolloutFile {
  path: string;
  /** Whose home holds it: a runtime profile's (by id), or the person's own (null). */
  profileId: string | null;
  threadId: string | null;
  /** A fork's parent thread, whose rollout holds the history the fork starts from (SRC-5). */
  forkedFromThreadId: string | null;
  cwd: string | null;
  /** The first message the person wrote in it (one line, at most 300 characters). */
  firstPrompt: string | null;
  /** When Codex started it (its session_meta), in ms; the file's name time when it has none. */
  startedAt: number | null;
  /** The file's modification time, in ms. */
  updatedAt: number;
  size: number;
  /** The branch Codex saw when it started (its session_meta's git info), when it says. */
  gitBranch: string | null;
}

/** How much of a file's head is read to describe it: Codex's first line carries its instructions. */
const HEAD_LIMIT = 256 * 1024;
const READ_CHUNK = 64 * 1024;
/** Fingerprint windows (SRC-3): the first bytes and the last bytes read. */
const FINGERPRINT_WINDOW = 64 * 1024;
const PROMPT_CHARS = 300;
const ROLLOUT_NAME = /^rollout-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}).*\.jsonl$/;
const DATE_PART = /^\d{2,4}$/;

/** The source documents' `sourceUnavailable`: the file is gone or unreadable; the app offers to choose it again. */
export const sourceUnavailable = (file: string, reason: string) =>
  new RuntimeError(
    'source_unavailable',
    `The Codex conversation file cannot be read (${reason}). Choose the file again.`,
    { path: file },
  );
/** The source documents' `reloadRequired`: bytes already read changed (not only appended). */
export const reloadRequired = (file: string) =>
  new RuntimeError('reload_required', 'Timeline source changed; reload the timeline', { path: file });

const inside = (folder: string, file: string) => {
  const relative = path.relative(folder, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
};

const realOrNull = (file: string) => {
  try {
    return fs.realpathSync(file);
  } catch {
    return null;
  }
};

/**
 * SRC-1: `requested` names a rollout file in a `sessions` folder of one of `homes`, through no
 * link that leads out of it. Anything else is refused (`invalid_params`); a file that is confined
 * but gone is `source_unavailable`.
 */
export function confinedRollout(homes: CodexHome[], requested: string): { file: string; home: CodexHome } {
  if (!path.isAbsolute(requested) || requested.split(/[\\/]/).includes('..') || requested.includes('\0')) {
    throw invalidParams('A Codex conversation file is named by its absolute path, without "..".', { path: requested });
  }
  const file = path.normalize(requested);
  const home = homes.find((h) => inside(path.join(h.home, 'sessions'), file));
  if (!home || !ROLLOUT_NAME.test(path.basename(file))) {
    throw invalidParams(
      'Only Codex conversation files (sessions/…/rollout-*.jsonl) in a Codex home of this computer can be opened.',
      { path: requested },
    );
  }
  const real = realOrNull(file);
  if (real === null) throw sourceUnavailable(file, 'it is gone');
  const realSessions = realOrNull(path.join(home.home, 'sessions'));
  if (!realSessions || !inside(realSessions, real))
    throw invalidParams('This Codex conversation file leads out of its Codex home.', { path: requested });
  if (!fs.statSync(real).isFile()) throw sourceUnavailable(file, 'it is not a file');
  return { file, home };
}

/** The home holding `file` (no file access). */
export function homeOf(homes: CodexHome[], file: string): CodexHome | undefined {
  return homes.find((h) => inside(path.join(h.home, 'sessions'), file));
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const read = fs.readSync(fd, buffer, filled, length - filled, position + filled);
    if (read === 0) break;
    filled += read;
  }
  return buffer.subarray(0, filled);
}

/** Where a fork's inherited history ends in its parent's rollout (Codex's `history_base`). */
const HistoryBaseSchema = z.object({ thread_id: z.string(), end_byte_offset: z.number().int().min(0) });
const SessionMetaSchema = z.object({
  type: z.literal('session_meta'),
  payload: z
    .object({
      id: z.string(),
      cwd: z.string().optional(),
      timestamp: z.string().optional(),
      history_base: HistoryBaseSchema.nullish(),
      git: z.object({ branch: z.string().nullish() }).passthrough().nullish(),
    })
    .passthrough(),
});
const UserMessageEventSchema = z.object({
  type: z.literal('event_msg'),
  payload: z.object({ type: z.literal('user_message'), message: z.string() }),
});
const ItemCompletedSchema = z.object({
  type: z.literal('event_msg'),
  payload: z.object({
    type: z.literal('item_completed'),
    item: z.object({
      type: z.literal('UserMessage'),
      content: z.array(z.object({ type: z.string(), text: z.string().optional() })),
    }),
  }),
});

/** The person's first message in one line of a rollout, in the forms Codex writes it. */
function userPromptOf(line: unknown): string | null {
  const event = UserMessageEventSchema.safeParse(line);
  if (event.success) return event.data.payload.message;
  const item = ItemCompletedSchema.safeParse(line);
  if (item.success) return item.data.payload.item.content.map((part) => part.text ?? '').join('');
  return null;
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, PROMPT_CHARS);

/** A rollout's thread id, cwd, start and first prompt, from at most its first 256 KiB (SRC-1). */
export function describeRollout(file: string, profileId: string | null): RolloutFile {
  return readHead(file, profileId).described;
}

function readHead(
  file: string,
  profileId: string | null,
): { described: RolloutFile; historyBase: z.infer<typeof HistoryBaseSchema> | null } {
  let historyBase: z.infer<typeof HistoryBaseSchema> | null = null;
  const fd = fs.openSync(file, 'r');
  try {
    const stat = fs.fstatSync(fd);
    const nameTime = ROLLOUT_NAME.exec(path.basename(file))?.[1];
    const described: RolloutFile = {
      path: file,
      profileId,
      threadId: null,
      forkedFromThreadId: null,
      cwd: null,
      firstPrompt: null,
      startedAt: nameTime
        ? Date.parse(`${nameTime.slice(0, 10)}T${nameTime.slice(11).replace(/-/g, ':')}Z`) || null
        : null,
      updatedAt: Math.round(stat.mtimeMs),
      size: stat.size,
      gitBranch: null,
    };
    let pending = '';
    for (
      let offset = 0;
      offset < Math.min(stat.size, HEAD_LIMIT) && (described.threadId === null || described.firstPrompt === null);
      offset += READ_CHUNK
    ) {
      const lines = (pending + readAt(fd, offset, READ_CHUNK).toString('utf8')).split('\n');
      pending = lines.pop() ?? '';
      for (const text of lines) {
        let line: unknown;
        try {
          line = JSON.parse(text);
        } catch {
          continue;
        }
        const meta = SessionMetaSchema.safeParse(line);
        if (meta.success && described.threadId === null) {
          described.threadId = meta.data.payload.id;
          described.cwd = meta.data.payload.cwd ?? null;
          described.gitBranch = meta.data.payload.git?.branch ?? null;
          historyBase = meta.data.payload.history_base ?? null;
          described.forkedFromThreadId = historyBase?.thread_id ?? null;
          described.startedAt =
            (meta.data.payload.timestamp && Date.parse(meta.data.payload.timestamp)) || described.startedAt;
          continue;
        }
        const prompt = described.firstPrompt === null ? userPromptOf(line) : null;
        if (prompt !== null) described.firstPrompt = oneLine(prompt);
      }
    }
    return { described, historyBase };
  } finally {
    fs.closeSync(fd);
  }
}

/** Codex follows at most this many ancestors of a fork. */
const MAX_ANCESTORS = 256;

/** The source documents' `missingHistorySource`: a fork's ancestor rollout is not where Codex reads it. */
export const missingHistorySource = (file: string, threadId: string, reason: string) =>
  new RuntimeError(
    'missing_history_source',
    `The conversation this one was forked from cannot be read (${reason}), so its history cannot be shown.`,
    { path: file, threadId },
  );

/**
 * SRC-5: every ancestor a fork's history starts from is in the same home (Codex 0.171 finds one
 * there by its thread id, nowhere else) and at least as long as the part the child inherits; a
 * cycle or more than 256 ancestors is refused too.
 */
export function checkAncestors(home: CodexHome, file: string): void {
  ancestorsOf(home, file);
}

/** SRC-5's checks, answering the ancestors' files, parent first. */
export function ancestorsOf(home: CodexHome, file: string): string[] {
  const seen = new Set<string>();
  const files: string[] = [];
  let base = readHead(file, home.profileId).historyBase;
  let ancestors: Map<string, string> | null = null;
  while (base) {
    if (seen.has(base.thread_id) || seen.size >= MAX_ANCESTORS)
      throw missingHistorySource(file, base.thread_id, 'its ancestors form a cycle or are too many');
    seen.add(base.thread_id);
    ancestors ??= new Map(rolloutPathsOf(home).map((entry) => [threadIdInName(entry.file) ?? '', entry.file]));
    const parent = ancestors.get(base.thread_id);
    if (!parent) throw missingHistorySource(file, base.thread_id, 'its file is not in this Codex home');
    let size: number;
    try {
      size = fs.statSync(parent).size;
    } catch {
      throw missingHistorySource(file, base.thread_id, 'its file is gone');
    }
    if (size < base.end_byte_offset)
      throw missingHistorySource(file, base.thread_id, 'its file is shorter than the part this one starts from');
    files.push(parent);
    base = readHead(parent, home.profileId).historyBase;
  }
  return files;
}

/** The thread id Codex puts at the end of a rollout's name. */
const threadIdInName = (file: string) => /-([0-9a-f-]{36})\.jsonl$/.exec(file)?.[1] ?? null;

/** The rollout file of a thread in a home (by its name), newest first when there are several. */
export function rolloutOfThread(home: CodexHome, threadId: string): string | null {
  return rolloutPathsOf(home).find((entry) => threadIdInName(entry.file) === threadId)?.file ?? null;
}

/** A home's rollout files, newest first by the time in their names (folder reads only). */
function rolloutPathsOf(home: CodexHome): { file: string; key: string }[] {
  const list = (folder: string) => {
    try {
      return fs.readdirSync(folder).sort().reverse();
    } catch {
      return [];
    }
  };
  const sessions = path.join(home.home, 'sessions');
  const found: { file: string; key: string }[] = [];
  for (const year of list(sessions).filter((n) => DATE_PART.test(n)))
    for (const month of list(path.join(sessions, year)).filter((n) => DATE_PART.test(n)))
      for (const day of list(path.join(sessions, year, month)).filter((n) => DATE_PART.test(n)))
        for (const name of list(path.join(sessions, year, month, day))) {
          const time = ROLLOUT_NAME.exec(name)?.[1];
          if (time) found.push({ file: path.join(sessions, year, month, day, name), key: `${time}\u0000${name}` });
        }
  return found;
}

const PageCursorSchema = z.object({ key: z.string() });

/** SRC-1: one page of the homes' rollout files, newest first; `next` continues after its last. */
export function listRollouts(
  homes: CodexHome[],
  options: { cursor?: string; limit: number },
): { rollouts: RolloutFile[]; next: string | null } {
  let after: string | null = null;
  if (options.cursor) {
    after = parseJsonWith(PageCursorSchema, Buffer.from(options.cursor, 'base64url').toString('utf8'))?.key ?? null;
    if (after === null) throw invalidParams('This list cursor is not valid. List the files again.');
  }
  const all = homes.flatMap((home) =>
    rolloutPathsOf(home).map((entry) => ({ ...entry, home, key: `${entry.key}\u0000${entry.file}` })),
  );
  all.sort((a, b) => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
  const rest = after === null ? all : all.filter((entry) => entry.key < after);
  const page = rest.slice(0, options.limit);
  const rollouts: RolloutFile[] = [];
  for (const entry of page) {
    try {
      rollouts.push(describeRollout(entry.file, entry.home.profileId));
    } catch {
      // Gone or unreadable since the folder was read: not listed.
    }
  }
  const last = page.at(-1);
  const next =
    rest.length > page.length && last
      ? Buffer.from(JSON.stringify({ key: last.key }), 'utf8').toString('base64url')
      : null;
  return { rollouts, next };
}

/** What a timeline read saw of its source (SRC-3): its size and digests of its first and last bytes. */
export interface SourceFingerprint {
  size: number;
  head: string;
  tailStart: number;
  tail: string;
}
export const SourceFingerprintSchema = z.object({
  size: z.number().int().min(0),
  head: z.string(),
  tailStart: z.number().int().min(0),
  tail: z.string(),
});

const digest = (bytes: Buffer) => crypto.createHash('sha256').update(bytes).digest('base64url');

function openSource(file: string): number {
  try {
    return fs.openSync(file, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw sourceUnavailable(
      file,
      code === 'ENOENT' ? 'it is gone' : code === 'EACCES' ? 'it may not be read' : 'it cannot be opened',
    );
  }
}

/** The source's fingerprint now, or `source_unavailable` when it is gone or unreadable. */
export function fingerprintSource(file: string): SourceFingerprint {
  const fd = openSource(file);
  try {
    const size = fs.fstatSync(fd).size;
    const tailStart = Math.max(0, size - FINGERPRINT_WINDOW);
    return {
      size,
      head: digest(readAt(fd, 0, Math.min(size, FINGERPRINT_WINDOW))),
      tailStart,
      tail: digest(readAt(fd, tailStart, size - tailStart)),
    };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * SRC-3: the bytes `seen` covered are still there, unchanged (appending keeps them): else
 * `reload_required`; a file gone or unreadable is `source_unavailable`.
 */
export function checkSource(file: string, seen: SourceFingerprint): void {
  const fd = openSource(file);
  try {
    const size = fs.fstatSync(fd).size;
    if (size < seen.size) throw reloadRequired(file);
    const head = digest(readAt(fd, 0, Math.min(seen.size, FINGERPRINT_WINDOW)));
    const tail = digest(readAt(fd, seen.tailStart, seen.size - seen.tailStart));
    if (head !== seen.head || tail !== seen.tail) throw reloadRequired(file);
  } finally {
    fs.closeSync(fd);
  }
}
