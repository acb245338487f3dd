import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isInside, segmentsUnder } from '../../../../server/runtime/files/pathInside';
import {
  locateByDescriptorLink,
  locateByRealpath,
  withVerifiedOpen,
} from '../../../../server/runtime/files/openVerified';
import { makeTempDir } from '../../../fixtures/tempDir';

/** A project whose `d` is a real folder, an outside folder with a file of the same name, and a link to it. */
function swapLayout() {
  const base = fs.realpathSync(makeTempDir('hbcode-open-'));
  const project = path.join(base, 'project');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(path.join(project, 'd'), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(project, 'd', 'file.txt'), 'inside');
  fs.writeFileSync(path.join(outside, 'file.txt'), 'outside');
  const folder = path.join(project, 'd');
  const toLink = () => {
    fs.renameSync(folder, path.join(project, 'held'));
    fs.symlinkSync(outside, folder);
  };
  const toFolder = () => {
    fs.unlinkSync(folder);
    fs.renameSync(path.join(project, 'held'), folder);
  };
  return { project, outside, file: path.join(folder, 'file.txt'), toLink, toFolder };
}

function withOpenFd<T>(file: string, work: (fd: number) => T): T {
  const fd = fs.openSync(file, 'r');
  try {
    return work(fd);
  } finally {
    fs.closeSync(fd);
  }
}

describe('SEC-2 one containment test', () => {
  it.each([
    ['/a/b', '/a/b', true],
    ['/a/b', '/a/b/c', true],
    ['/a/b', '/a/b/..c/d', true],
    ['/a/b', '/a/bc', false],
    ['/a/b', '/a', false],
    ['/a/b', '/x/a/b', false],
    ['/a/b/', '/a/b/c', true],
    ['/', '/anything', true],
  ])('SEC-2 isInside(%s, %s) is %s', (folder, candidate, inside) => {
    expect(isInside(folder, candidate)).toBe(inside);
  });

  it('SEC-2 segmentsUnder names the way down, none for the folder itself', () => {
    expect(segmentsUnder('/a/b', '/a/b/c/d.txt')).toEqual(['c', 'd.txt']);
    expect(segmentsUnder('/a/b', '/a/b')).toEqual([]);
  });
});

describe('SEC-7 what was opened, not what the name leads to now', () => {
  it('SEC-7 the descriptor link names the outside file opened through a swapped folder', () => {
    const layout = swapLayout();
    layout.toLink();
    const real = withOpenFd(layout.file, (fd) => locateByDescriptorLink(fd));
    expect(real).toBe(path.join(layout.outside, 'file.txt'));
  });

  it('SEC-7 the realpath fallback refuses when the folder was swapped after the open, either way', () => {
    const layout = swapLayout();
    // Opened the inside file; the folder then became a link out: the name now leads elsewhere.
    withOpenFd(layout.file, (fd) => {
      const stat = fs.fstatSync(fd);
      expect(locateByRealpath(layout.file, stat)).toBe(layout.file);
      layout.toLink();
      expect(locateByRealpath(layout.file, stat)).toBeNull();
    });
    // Opened the outside file through the link; the folder then came back: refused too.
    withOpenFd(layout.file, (fd) => {
      const stat = fs.fstatSync(fd);
      layout.toFolder();
      expect(locateByRealpath(layout.file, stat)).toBeNull();
    });
  });

  it('SEC-7 withVerifiedOpen hands the opened file to the rule and refuses what it rejects', () => {
    const layout = swapLayout();
    const inProject = (real: string) => isInside(layout.project, real);
    const read = () =>
      withVerifiedOpen(
        layout.file,
        inProject,
        ({ fd, stat }) => {
          const bytes = Buffer.alloc(stat.size);
          fs.readSync(fd, bytes, 0, stat.size, 0);
          return bytes.toString();
        },
        (refusal) => refusal.reason,
      );
    expect(read()).toBe('inside');
    layout.toLink();
    expect(read()).toBe('refused');
    expect(
      withVerifiedOpen(
        path.join(layout.project, 'missing'),
        inProject,
        () => 'opened',
        (r) => r.reason,
      ),
    ).toBe('missing');
  });

  it('SEC-7 a last name that is a link is refused (O_NOFOLLOW): callers open the resolved path', () => {
    const layout = swapLayout();
    const link = path.join(layout.project, 'link.txt');
    fs.symlinkSync(layout.file, link);
    expect(
      withVerifiedOpen(
        link,
        () => true,
        () => 'opened',
        (r) => r.reason,
      ),
    ).toBe('missing');
  });
});
