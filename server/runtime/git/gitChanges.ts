import fs from 'node:fs';
import path from 'node:path';
import {
  MAX_GIT_DIFF_BYTES,
  MAX_GIT_STATUS_ENTRIES,
  type GitFileStatus,
  type GitStatus,
} from '../../../lib/protocol/git';
import { confineGitPath, gitPathIsServed } from './gitPaths';
import type { GitProject } from './gitRepository';
import { gitWords } from './gitErrors';
import { parsePorcelainStatus } from './parseStatus';
import { readStoppedOperation } from './gitStoppedOperation';

/** GIT-2: the branch, its upstream and the project's changed paths; private ones counted, not named (GIT-7). */
export async function readStatus(repo: GitProject): Promise<GitStatus> {
  const run = await repo.run(['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=all', '--', '.']);
  // A cut output's last record may be cut too: it is left out with what followed it.
  const output = run.truncated ? run.stdout.slice(0, run.stdout.lastIndexOf('\0') + 1) : run.stdout;
  const parsed = parsePorcelainStatus(output);
  const files: GitFileStatus[] = [];
  let privateCount = 0;
  for (const file of parsed.files) {
    const inProject = underPrefix(repo.prefix, file.path);
    if (inProject === null) continue;
    if (!gitPathIsServed(repo.root, inProject, repo.secrets)) {
      privateCount++;
      continue;
    }
    const { origPath, ...rest } = file;
    const origInProject = origPath === undefined ? null : underPrefix(repo.prefix, origPath);
    const namesOrig = origInProject !== null && gitPathIsServed(repo.root, origInProject, repo.secrets);
    files.push({ ...rest, path: inProject, ...(namesOrig ? { origPath: origInProject } : {}) });
  }
  const { merging, rebasing } = await readStoppedOperation(repo);
  return {
    ...parsed,
    files: files.slice(0, MAX_GIT_STATUS_ENTRIES),
    privateCount,
    truncated: run.truncated || files.length > MAX_GIT_STATUS_ENTRIES,
    merging,
    rebasing,
  };
}

/** A top-relative path as a path of the project folder, or null when it lies outside it. */
function underPrefix(prefix: string, topRelative: string): string | null {
  if (prefix === '') return topRelative;
  return topRelative.startsWith(prefix) ? topRelative.slice(prefix.length) : null;
}

/**
 * GIT-3: one file's unified diff, staged (index against HEAD) or not (work tree against index);
 * an untracked file as all added lines. Cut at 2 MiB, and then it says so.
 */
export async function readDiff(
  repo: GitProject,
  requestPath: string,
  staged: boolean,
): Promise<{ diff: string; truncated: boolean }> {
  const file = confineGitPath(repo.root, requestPath, repo.secrets);
  const common = ['--no-color', '--no-ext-diff', '--no-textconv'];
  const tracked = staged || (await isTracked(repo, file));
  const args = tracked
    ? ['diff', ...common, ...(staged ? ['--cached'] : []), '--', file]
    : ['diff', '--no-index', ...common, '--', '/dev/null', file];
  const run = await repo.run(args, { okExitCodes: tracked ? [] : [1], maxOutputBytes: MAX_GIT_DIFF_BYTES });
  return { diff: run.stdout, truncated: run.truncated };
}

async function isTracked(repo: GitProject, file: string): Promise<boolean> {
  const run = await repo.run(['ls-files', '--error-unmatch', '--', file], { okExitCodes: [1] });
  return run.exitCode === 0 || !fs.existsSync(path.join(repo.root, file));
}

/** GIT-4: `git add` (new, changed and deleted files alike), then the status. */
export async function stagePaths(repo: GitProject, paths: readonly string[]): Promise<GitStatus> {
  const files = paths.map((p) => confineGitPath(repo.root, p, repo.secrets));
  await repo.run(['add', '--', ...files]);
  return readStatus(repo);
}

/** GIT-4: `git reset` of the paths (also before the first commit), then the status. */
export async function unstagePaths(repo: GitProject, paths: readonly string[]): Promise<GitStatus> {
  const files = paths.map((p) => confineGitPath(repo.root, p, repo.secrets));
  await repo.run(['reset', '-q', '--', ...files]);
  return readStatus(repo);
}

/** GIT-5: commits what is staged; the message goes in on stdin, never as an argument. */
export async function commitStaged(repo: GitProject, message: string): Promise<{ output: string }> {
  const run = await repo.run(['commit', '--file=-'], { input: message });
  return { output: gitWords(run) };
}
