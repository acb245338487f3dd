import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProjectFiles } from '../../../../server/runtime/files/projectFiles';
import { isInside } from '../../../../server/runtime/files/pathInside';
import { makeTempDir } from '../../../fixtures/tempDir';

afterEach(() => {
  vi.restoreAllMocks();
});

// SEC-2, FILE-3: listing a folder never opens what a link in it points to outside the project.
// Opening is not harmless: a link a cloned repository carries to a serial device resets the
// board behind it, and one to a FIFO wakes whoever waits to write into it.
describe('SEC-2 files.list checks a link target before opening it', () => {
  it('SEC-2 a link to a file outside the project is left out without being opened; one inside is listed', () => {
    const base = fs.realpathSync(makeTempDir('hbcode-list-'));
    const project = path.join(base, 'project');
    const outside = path.join(base, 'outside');
    fs.mkdirSync(project);
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'device'), 'stands in for /dev/ttyACM0');
    fs.writeFileSync(path.join(project, 'notes.txt'), 'inside');
    fs.symlinkSync(path.join(outside, 'device'), path.join(project, 'board'));
    fs.symlinkSync(path.join(project, 'notes.txt'), path.join(project, 'notes-link.txt'));
    const opened: string[] = [];
    const realOpen = fs.openSync;
    vi.spyOn(fs, 'openSync').mockImplementation((file, ...rest) => {
      opened.push(String(file));
      return realOpen(file, ...rest);
    });

    const entries = new ProjectFiles([{ id: 'p', name: 'project', directory: project }], false).list(project, '');

    expect(entries.map((entry) => entry.name)).toEqual(['notes-link.txt', 'notes.txt']);
    expect(opened.filter((file) => !isInside(project, file))).toEqual([]);
    expect(opened).toContain(path.join(project, 'notes.txt'));
  });
});
