import type { GitBranch } from '../../../lib/protocol/git';
import { gitWords } from './gitErrors';
import type { GitProject } from './gitRepository';

/** Most branches `git.branches` lists. */
const MAX_BRANCHES = 1000;
const LOCAL = 'refs/heads/';
const REMOTE = 'refs/remotes/';

/**
 * GIT-6: local branches, then remote-tracking ones that have no local branch of their name
 * (switching to one makes it), each by name.
 */
export async function listBranches(repo: GitProject): Promise<GitBranch[]> {
  const run = await repo.run([
    'for-each-ref',
    '--format=%(HEAD)%00%(refname)%00%(upstream:short)%00%(symref)',
    LOCAL,
    REMOTE,
  ]);
  const local: GitBranch[] = [];
  const remote: GitBranch[] = [];
  for (const line of run.stdout.split('\n')) {
    const [head, refname = '', upstream = '', symref = ''] = line.split('\0');
    if (refname.startsWith(LOCAL))
      local.push({
        name: refname.slice(LOCAL.length),
        current: head === '*',
        remote: false,
        upstream: upstream || null,
      });
    else if (refname.startsWith(REMOTE) && symref === '')
      remote.push({ name: refname.slice(REMOTE.length), current: false, remote: true, upstream: null });
  }
  const localNames = new Set(local.map((b) => b.name));
  const untracked = remote.filter((b) => !localNames.has(b.name.slice(b.name.indexOf('/') + 1)));
  return [...local, ...untracked].slice(0, MAX_BRANCHES);
}

/** GIT-6: a new branch from HEAD, switched to; git judges the name (`check-ref-format`) in its own words. */
export async function createBranch(repo: GitProject, name: string): Promise<{ output: string }> {
  await repo.run(['check-ref-format', '--branch', name]);
  const run = await repo.run(['switch', '--create', name]);
  return { output: gitWords(run) };
}

/** GIT-6: a local branch by name; a remote-tracking one (`origin/x`) gets a local branch tracking it. */
export async function switchBranch(repo: GitProject, name: string): Promise<{ output: string }> {
  const branches = await listBranches(repo);
  const remote = branches.some((b) => b.remote && b.name === name);
  const run = await repo.run(remote ? ['switch', '--track', '--', name] : ['switch', '--', name]);
  return { output: gitWords(run) };
}
