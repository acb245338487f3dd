import type { GitFileStatus, GitStatusLetter } from '../../../lib/protocol/git';

export interface ParsedStatus {
  branch: string | null;
  head: string | null;
  upstream: string | null;
  ahead: number | null;
  behind: number | null;
  /** Paths relative to the repository's top folder. */
  files: GitFileStatus[];
}

const LETTERS = new Set<string>(['.', 'M', 'T', 'A', 'D', 'R', 'C', 'U']);
const letter = (value: string | undefined): GitStatusLetter =>
  value !== undefined && LETTERS.has(value) ? (value as GitStatusLetter) : '.';

/** Fields before the path in each kind of porcelain v2 entry. */
const FIELDS_BEFORE_PATH: Record<string, number> = { '1': 8, '2': 9, u: 10 };

/**
 * `git status --porcelain=v2 --branch -z` (GIT-2): the branch headers and one entry per changed
 * path. Unknown lines are skipped, so a newer git's additions cannot break the view.
 */
export function parsePorcelainStatus(output: string): ParsedStatus {
  const status: ParsedStatus = { branch: null, head: null, upstream: null, ahead: null, behind: null, files: [] };
  const records = output.split('\0');
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    if (record.startsWith('# ')) readHeader(status, record.slice(2));
    else if (record.startsWith('? '))
      status.files.push({ path: record.slice(2), index: '?', worktree: '?', kind: 'untracked' });
    else {
      const kind = record.slice(0, 1);
      const before = FIELDS_BEFORE_PATH[kind];
      if (before === undefined || record[1] !== ' ') continue;
      const fields = record.split(' ');
      const filePath = fields.slice(before).join(' ');
      const xy = fields[1] ?? '..';
      const entry: GitFileStatus = {
        path: filePath,
        index: letter(xy[0]),
        worktree: letter(xy[1]),
        kind: kind === 'u' ? 'conflict' : 'tracked',
      };
      // A rename or copy's old path is the next NUL-separated record.
      if (kind === '2') entry.origPath = records[++i] ?? '';
      status.files.push(entry);
    }
  }
  return status;
}

function readHeader(status: ParsedStatus, header: string): void {
  const space = header.indexOf(' ');
  const name = header.slice(0, space);
  const value = header.slice(space + 1);
  if (name === 'branch.oid') status.head = value === '(initial)' ? null : value;
  else if (name === 'branch.head') status.branch = value === '(detached)' ? null : value;
  else if (name === 'branch.upstream') status.upstream = value;
  else if (name === 'branch.ab') {
    const match = /^\+(\d+) -(\d+)$/.exec(value);
    if (match) {
      status.ahead = Number(match[1]);
      status.behind = Number(match[2]);
    }
  }
}
