import fs from 'node:fs';
import path from 'node:path';
import { notFound } from '../../errors';
import { ancestorsOf, listRollouts, rolloutOfThread, type CodexHome, type RolloutFile } from './codexRolloutFiles';

/** How many of the person's conversation files one listing reads the head of, at most (each at most 256 KiB, SRC-1). */
const MAX_FILES_SCANNED = 2000;
const PAGE = 200;

const canonical = (folder: string) => {
  try {
    return fs.realpathSync(folder);
  } catch {
    return path.resolve(folder);
  }
};

/**
 * ACC-11: the conversations of the person's own Codex home (`~/.codex`, `$CODEX_HOME`) that ran in
 * `cwd`, newest first, read from their files' heads (thread id, first prompt, start, size, branch):
 * the profiles' app-servers cannot list another home's threads.
 */
export function ownHomeConversations(home: CodexHome, cwd: string, limit: number): RolloutFile[] {
  const folder = canonical(cwd);
  const found: RolloutFile[] = [];
  const threads = new Set<string>();
  let cursor: string | undefined;
  for (let scanned = 0; scanned < MAX_FILES_SCANNED && found.length < limit; scanned += PAGE) {
    const page = listRollouts([home], { limit: PAGE, ...(cursor ? { cursor } : {}) });
    for (const rollout of page.rollouts) {
      if (!rollout.threadId || !rollout.cwd || threads.has(rollout.threadId)) continue;
      if (rollout.cwd !== cwd && canonical(rollout.cwd) !== folder) continue;
      threads.add(rollout.threadId);
      found.push(rollout);
      if (found.length >= limit) break;
    }
    if (!page.next) break;
    cursor = page.next;
  }
  return found;
}

/**
 * ACC-11: continues a thread of the person's own Codex home in a runtime profile by copying its
 * file (and the files of the conversations it was forked from, SRC-5) into the profile's home at
 * the same place under `sessions/`, where that profile's app-server finds it by its thread id.
 * The person's file is only read: their terminal's conversation stays as it is (SRC-4). A copy
 * already in the profile is kept (it may have been continued there since).
 */
export function copyOwnThreadIntoProfile(own: CodexHome, profileHome: string, threadId: string): void {
  const file = rolloutOfThread(own, threadId);
  if (!file) throw notFound('This Codex conversation is not in your Codex home any more.', { threadId });
  for (const source of [file, ...ancestorsOf(own, file)]) {
    const target = path.join(profileHome, path.relative(own.home, source));
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    try {
      fs.copyFileSync(source, target, fs.constants.COPYFILE_EXCL);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
