import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { childProgram } from '../../../../server/runtime/process/childProgram';
import { makeTempDir } from '../../../fixtures/tempDir';

describe('MSG-1 a child program started from source runs from any folder', () => {
  it('MSG-1 the session tool server, started from its TypeScript source in a folder outside the repository, runs and says what it lacks', () => {
    const program = childProgram('sessionTools', {});
    expect(program.args).toContain('--import');
    const run = spawnSync(program.file, program.args, {
      cwd: makeTempDir('hbcode-foreign-cwd-'),
      env: { PATH: process.env.PATH },
      input: '',
      encoding: 'utf8',
      timeout: 50_000,
    });
    expect({ status: run.status, stderr: run.stderr }).toEqual({
      status: 2,
      stderr: expect.stringContaining('needs HBCODE_SESSION_TOOLS_URL and HBCODE_SESSION_TOOLS_KEY'),
    });
  });
});
