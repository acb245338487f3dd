import { gitWords } from './gitErrors';
import type { GitProject } from './gitRepository';

/**
 * GIT-8: `git pull` with the person's own configuration and credentials. Only when they chose
 * no way to reconcile (`pull.rebase`, `pull.ff` unset) is it a merge, git's long-time default,
 * so a pull from the phone never stops at "Need to specify how to reconcile divergent branches".
 */
export async function pull(repo: GitProject): Promise<{ output: string }> {
  const chosen = await Promise.all(
    ['pull.rebase', 'pull.ff'].map((key) => repo.run(['config', '--get', key], { okExitCodes: [1] })),
  );
  const unset = chosen.every((run) => run.exitCode === 1);
  const run = await repo.run(['pull', '--no-edit', ...(unset ? ['--no-rebase'] : [])], { network: true });
  return { output: gitWords(run) };
}

/**
 * GIT-8: `git push` as configured; a branch with no upstream yet is pushed to the repository's
 * one remote (or `origin`) under its own name and tracks it from then on.
 */
export async function push(repo: GitProject): Promise<{ output: string }> {
  const upstream = await repo.run(['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{upstream}'], {
    okExitCodes: [128],
  });
  const remote = upstream.exitCode === 0 ? null : await pushRemote(repo);
  const run = await repo.run(remote ? ['push', '--set-upstream', remote, 'HEAD'] : ['push'], { network: true });
  return { output: gitWords(run) };
}

async function pushRemote(repo: GitProject): Promise<string | null> {
  const remotes = (await repo.run(['remote'])).stdout.split('\n').filter((name) => name !== '');
  if (remotes.length === 1) return remotes[0]!;
  return remotes.includes('origin') ? 'origin' : null;
}
