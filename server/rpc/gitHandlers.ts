import { commitStaged, readDiff, readStatus, stagePaths, unstagePaths } from '../runtime/git/gitChanges';
import { createBranch, listBranches, switchBranch } from '../runtime/git/gitBranches';
import { pull, push } from '../runtime/git/gitRemote';
import { abortStoppedOperation } from '../runtime/git/gitStoppedOperation';
import type { GitRepositories } from '../runtime/git/gitRepository';
import type { MethodHandlers } from './methodHandlers';

type GitMethod = Extract<keyof MethodHandlers, `git.${string}`>;

/** git.* methods (GIT-1…GIT-8): each runs in the named project folder, confined like files.* (GIT-7). */
export function createGitHandlers(git: GitRepositories): Pick<MethodHandlers, GitMethod> {
  return {
    'git.status'(params) {
      return git.with(params.projectDirectory, readStatus);
    },
    'git.diff'(params) {
      return git.with(params.projectDirectory, (repo) => readDiff(repo, params.path, params.staged));
    },
    'git.stage'(params) {
      return git.with(params.projectDirectory, (repo) => stagePaths(repo, params.paths));
    },
    'git.unstage'(params) {
      return git.with(params.projectDirectory, (repo) => unstagePaths(repo, params.paths));
    },
    'git.commit'(params) {
      return git.with(params.projectDirectory, (repo) => commitStaged(repo, params.message));
    },
    async 'git.branches'(params) {
      return { branches: await git.with(params.projectDirectory, listBranches) };
    },
    'git.createBranch'(params) {
      return git.with(params.projectDirectory, (repo) => createBranch(repo, params.name));
    },
    'git.switchBranch'(params) {
      return git.with(params.projectDirectory, (repo) => switchBranch(repo, params.name));
    },
    'git.pull'(params) {
      return git.with(params.projectDirectory, pull);
    },
    'git.push'(params) {
      return git.with(params.projectDirectory, push);
    },
    'git.abortMerge'(params) {
      return git.with(params.projectDirectory, async (repo) => {
        await abortStoppedOperation(repo);
        return readStatus(repo);
      });
    },
  };
}
