import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../server/runtime/paths';
import { READABILITY_CORPUS_DIR } from '../../fixtures/readabilityCorpus';

// MD-1: `npm run markdown` converts local HTML files with the reader's converter.

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-markdown-cli-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function runCli(args: string[]) {
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(REPO_ROOT, 'scripts', 'markdown.ts'), ...args],
    { cwd: REPO_ROOT, encoding: 'utf8' },
  );
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('MD-1 the markdown command line', () => {
  const first = path.join(dir, 'first.html');
  const second = path.join(dir, 'second.htm');
  fs.copyFileSync(path.join(READABILITY_CORPUS_DIR, '001', 'source.html'), first);
  fs.copyFileSync(path.join(READABILITY_CORPUS_DIR, 'wikipedia', 'source.html'), second);

  it('MD-1 many files into --out, links absolute against --url; an unreadable file is reported and the exit code is 1', () => {
    const out = path.join(dir, 'out');
    const missing = path.join(dir, 'missing.html');
    const { code, stderr } = runCli([
      '--url',
      'https://example.com/blog/post.html',
      '--out',
      out,
      first,
      missing,
      second,
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain(`cannot read ${missing}`);
    expect(fs.readdirSync(out).sort()).toEqual(['first.md', 'second.md']);
    const markdown = fs.readFileSync(path.join(out, 'first.md'), 'utf8');
    expect(
      markdown.startsWith(
        '# Get your Frontend JavaScript Code Covered | Code\n\nNicolas Perriault\n\nSource: <https://example.com/blog/post.html>\n\n---\n',
      ),
    ).toBe(true);
    expect(markdown).toContain(
      '[testing your frontend JavaScript code](https://example.com/code/2013/testing-frontend-javascript-code-using-mocha-chai-and-sinon/)',
    );
    expect(fs.readFileSync(path.join(out, 'second.md'), 'utf8')).toContain('Mozilla');
  });

  it('MD-1 --body-only to standard output, exit code 0; no file is a usage error', () => {
    const { code, stdout } = runCli(['--body-only', first]);
    expect(code).toBe(0);
    expect(stdout.startsWith('**So finally you')).toBe(true);
    expect(stdout).not.toContain('Source:');
    expect(runCli([]).code).toBe(2);
    expect(runCli(['--url', 'file:///x', first]).code).toBe(2);
  });
});
