import { describe, expect, it } from 'vitest';
import {
  commandResult,
  sandboxFailureOf,
  sandboxFailureText,
} from '../../../../../server/runtime/agents/codex/codexSandbox';
import type { CommandExecutionItem } from '../../../../../server/runtime/agents/codex/codexProtocol';

const item = (
  status: CommandExecutionItem['status'],
  aggregatedOutput: string | null,
  exitCode: number | null,
): CommandExecutionItem => ({
  type: 'commandExecution',
  id: 'call_1',
  command: "/bin/bash -lc 'echo hi'",
  status,
  aggregatedOutput,
  exitCode,
});

// What Codex 0.171 reported (item/completed's aggregatedOutput) on a real machine; the namespace line is bubblewrap 0.8's own message.
const NO_BWRAP =
  "\nthread 'main' (32719) panicked at linux-sandbox/src/launcher.rs:68:13:\nbubblewrap is unavailable: no system bwrap was found on PATH and no bundled codex-resources/bwrap binary was found next to the Codex executable\nstack backtrace:\n";
const REFUSED_FOLDER = 'bwrap: execvp codex-linux-sandbox: No such file or directory\n';
const NO_NAMESPACES =
  'bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.\n';

describe('Codex sandbox failures (SBX-2)', () => {
  it('SBX-2 each way the sandbox fails to start is named, and a row says it with the choices, never an exit code', () => {
    expect(sandboxFailureOf(item('failed', NO_BWRAP, 101))).toBe('noBubblewrap');
    expect(sandboxFailureOf(item('failed', REFUSED_FOLDER, 1))).toBe('refusedFolder');
    expect(sandboxFailureOf(item('failed', NO_NAMESPACES, 1))).toBe('noNamespaces');
    const result = commandResult(item('failed', NO_BWRAP, 101), false);
    expect(result).toEqual({ status: 'failed', exitCode: null, error: sandboxFailureText('noBubblewrap') });
    expect(result.error).toMatch(/install bubblewrap.*full access/);
    expect(sandboxFailureText('refusedFolder')).toMatch(/move the data folder/);
  });

  it('SBX-2 a command that ran and failed is not a sandbox failure, even when it prints the same words later', () => {
    expect(sandboxFailureOf(item('failed', "touch: cannot touch '/x': Read-only file system\n", 1))).toBeNull();
    expect(sandboxFailureOf(item('completed', REFUSED_FOLDER, 0))).toBeNull();
    expect(sandboxFailureOf(item('failed', `${'x'.repeat(2000)}\n${REFUSED_FOLDER}`, 1))).toBeNull();
    expect(commandResult(item('failed', 'touch: cannot touch\n', 1), false)).toEqual({ status: 'exited', exitCode: 1 });
  });

  it("SBX-2 a command Codex could not spawn is failed with Codex's reason", () => {
    expect(
      commandResult(
        item('failed', 'Failed to create unified exec process: No such file or directory (os error 2)', -1),
        false,
      ),
    ).toEqual({
      status: 'failed',
      exitCode: null,
      error: 'Codex could not start the command: No such file or directory (os error 2).',
    });
    expect(commandResult(item('declined', null, null), false)).toMatchObject({ status: 'cancelled', exitCode: null });
    expect(commandResult(item('failed', REFUSED_FOLDER, 1), true)).toEqual({ status: 'cancelled', exitCode: 1 });
  });
});
