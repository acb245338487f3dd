import { describe, expect, it } from 'vitest';
import { parsePorcelainStatus } from '../../../../server/runtime/git/parseStatus';

const records = (...lines: string[]) => lines.join('\0') + '\0';

describe('GIT-2 porcelain v2 status parsing', () => {
  it('GIT-2 reads branch headers and every kind of entry, names with spaces and renames included', () => {
    const output = records(
      '# branch.oid 0123456789abcdef0123456789abcdef01234567',
      '# branch.head feature/x',
      '# branch.upstream origin/feature/x',
      '# branch.ab +2 -3',
      '1 .M N... 100644 100644 100644 aaaa aaaa a file with spaces.txt',
      '2 R. N... 100644 100644 100644 bbbb bbbb R100 new name.txt',
      'old name.txt',
      'u UU N... 100644 100644 100644 100644 cccc dddd eeee conflicted.txt',
      '? untracked/file.md',
      '! ignored.log',
    );
    expect(parsePorcelainStatus(output)).toEqual({
      branch: 'feature/x',
      head: '0123456789abcdef0123456789abcdef01234567',
      upstream: 'origin/feature/x',
      ahead: 2,
      behind: 3,
      files: [
        { path: 'a file with spaces.txt', index: '.', worktree: 'M', kind: 'tracked' },
        { path: 'new name.txt', origPath: 'old name.txt', index: 'R', worktree: '.', kind: 'tracked' },
        { path: 'conflicted.txt', index: 'U', worktree: 'U', kind: 'conflict' },
        { path: 'untracked/file.md', index: '?', worktree: '?', kind: 'untracked' },
      ],
    });
  });

  it('GIT-2 a new repository and a detached HEAD have no branch, commit or upstream; unknown records are skipped', () => {
    expect(
      parsePorcelainStatus(records('# branch.oid (initial)', '# branch.head main', '# stash 3', 'x something new')),
    ).toMatchObject({ branch: 'main', head: null, upstream: null, ahead: null, behind: null, files: [] });
    expect(parsePorcelainStatus(records('# branch.oid 1234', '# branch.head (detached)')).branch).toBeNull();
  });
});
