import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { HistoryPage, HistoryPageRequest } from '../agent';
import { invalidParams, notFound } from '../../errors';
import type { CodexProfile, CodexProfiles } from './codexProfiles';
import {
  checkAncestors,
  checkSource,
  confinedRollout,
  describeRollout,
  fingerprintSource,
  homeOf,
  listRollouts,
  SourceFingerprintSchema,
  type CodexHome,
  type RolloutFile,
  type SourceFingerprint,
} from './codexRolloutFiles';
import { parseJsonWith } from '../../../../lib/shared/parseJsonWith';

/** A timeline cursor of an exact source: Codex's page cursor and what the read had seen of the file (SRC-3). */
const ExactCursorSchema = z.object({ seen: SourceFingerprintSchema, inner: z.string() });

const wrapCursor = (inner: string | null, seen: SourceFingerprint) =>
  inner === null ? null : Buffer.from(JSON.stringify({ seen, inner }), 'utf8').toString('base64url');

function unwrapCursor(text: string): z.infer<typeof ExactCursorSchema> {
  const cursor = parseJsonWith(ExactCursorSchema, Buffer.from(text, 'base64url').toString('utf8'));
  if (!cursor) throw notFound('This timeline cursor is not valid any more. Reload the timeline.');
  return cursor;
}

/**
 * Codex conversations the person picks as files (SRC-1..SRC-4): the homes that may be listed, the
 * confinement of a chosen path, and the fingerprinted page reads of a session linked to one.
 */
export class CodexExactSources {
  constructor(
    private readonly profiles: CodexProfiles,
    private readonly dataDir: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** The person's own Codex home (`$CODEX_HOME`, else `~/.codex`), when there is one and it is no profile's. */
  ownHome(): CodexHome | null {
    return this.homes().find((h) => h.profileId === null) ?? null;
  }

  private ownHomeFolder(): string | null {
    const home = this.env.CODEX_HOME?.trim() || path.join(this.env.HOME?.trim() || os.homedir(), '.codex');
    try {
      return fs.statSync(home).isDirectory() ? path.resolve(home) : null;
    } catch {
      return null;
    }
  }

  /** SRC-1: every runtime profile's home, then the person's own. */
  homes(): CodexHome[] {
    const homes: CodexHome[] = this.profiles.all().map((profile) => ({ profileId: profile.id, home: profile.home }));
    const own = this.ownHomeFolder();
    if (own && !homes.some((h) => h.home === own)) homes.push({ profileId: null, home: own });
    return homes;
  }

  list(options: { cursor?: string; limit: number }): { rollouts: RolloutFile[]; next: string | null } {
    return listRollouts(this.homes(), options);
  }

  /** SRC-2: a chosen file, confined to the homes and read for its thread id. */
  choose(requested: string): { file: string; home: CodexHome; threadId: string } {
    const { file, home } = confinedRollout(this.homes(), requested);
    const described = describeRollout(file, home.profileId);
    if (!described.threadId)
      throw invalidParams('This file does not start like a Codex conversation (no session_meta line with its id).', {
        path: file,
      });
    checkAncestors(home, file);
    return { file, home, threadId: described.threadId };
  }

  /**
   * SRC-4: a file outside every runtime profile home is the person's own conversation. Codex
   * loads a conversation only from the home of the app-server that reads it, so it is read by an
   * app-server on that home, and never written to.
   */
  ownerOf(rolloutPath: string): CodexHome | undefined {
    return homeOf(this.homes(), rolloutPath);
  }

  /** The app-server identity for reading the person's own home: their home, our temporary folder. */
  readerOf(home: string): CodexProfile {
    const key = crypto.createHash('sha256').update(home).digest('hex').slice(0, 16);
    return { id: `home-${key}`, home, tmp: path.join(this.dataDir, 'codex', 'homes', key, 'tmp') };
  }

  /**
   * SRC-3: one timeline page from the file: a page that continues a cursor first checks the
   * bytes that cursor covered are unchanged (appending keeps them), and the cursors it answers
   * carry what this read saw. A file gone or unreadable is `source_unavailable` on any page.
   */
  async page(
    file: string,
    request: HistoryPageRequest,
    read: (request: HistoryPageRequest) => Promise<HistoryPage>,
  ): Promise<HistoryPage> {
    const cursor = request.before ?? request.after;
    let inner = request;
    if (cursor) {
      const { seen, inner: codex } = unwrapCursor(cursor);
      checkSource(file, seen);
      inner = { ...request, before: request.before ? codex : null, after: request.after ? codex : null };
    }
    const seen = fingerprintSource(file);
    const home = this.ownerOf(file);
    if (home) checkAncestors(home, file);
    const page = await read(inner);
    return { ...page, older: wrapCursor(page.older, seen), newer: wrapCursor(page.newer, seen) };
  }
}
