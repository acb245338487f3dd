import fs from 'node:fs';
import path from 'node:path';
import { RuntimeError } from '../errors';
import type { GitProject } from './gitRepository';

/** GIT-2, GIT-10: whether a merge (MERGE_HEAD) or a rebase (git's rebase-merge or rebase-apply folder) stopped part way. */
export async function readStoppedOperation(repo: GitProject): Promise<{ merging: boolean; rebasing: boolean }> {
  const merging = (await repo.run(['rev-parse', '-q', '--verify', 'MERGE_HEAD'], { okExitCodes: [1] })).exitCode === 0;
  const folders = (await repo.run(['rev-parse', '--git-path', 'rebase-merge', '--git-path', 'rebase-apply'])).stdout
    .split('\n')
    .filter((line) => line !== '');
  const rebasing = folders.some((folder) => fs.existsSync(path.resolve(repo.root, folder)));
  return { merging, rebasing };
}

/**
 * GIT-10: on the person's tap, gives up the merge or rebase a conflicted pull left (`git merge
 * --abort`, `git rebase --abort`): the branch and work tree go back to where they were before it.
 * With neither going on there is nothing to give up: `git_failed` saying so.
 */
export async function abortStoppedOperation(repo: GitProject): Promise<void> {
  const { merging, rebasing } = await readStoppedOperation(repo);
  if (!merging && !rebasing)
    throw new RuntimeError('git_failed', 'There is no merge or rebase to abort.', { command: 'merge', exitCode: null });
  await repo.run(rebasing ? ['rebase', '--abort'] : ['merge', '--abort']);
}
