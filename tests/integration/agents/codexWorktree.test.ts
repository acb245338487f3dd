import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { codexSettings, sendAndWait } from '../../fixtures/agentSessions';
import { codexConfigToml, codexTurnScript, type CodexStep } from '../../fixtures/fakeCodexModel';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { readWholeOutput } from '../../fixtures/sessionHelpers';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** SES-10 with the real Codex in its workspace-write sandbox, against the fake model. */
describe('SES-10 a Codex session in a worktree of its own', () => {
  let dirs: RuntimeDirs;
  let model: FakeModelServer;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  const steps: CodexStep[] = [];

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    const repo = dirs.projectDirs[0]!;
    git(repo, 'init', '--quiet', '--initial-branch=main');
    git(repo, 'config', 'user.email', 'tests@example.invalid');
    git(repo, 'config', 'user.name', 'Tests');
    fs.writeFileSync(path.join(repo, 'README.md'), 'hello\n');
    git(repo, 'add', 'README.md');
    git(repo, 'commit', '--quiet', '-m', 'first');
    model = await startFakeModelServer(codexTurnScript(() => steps.shift() ?? { message: 'Nothing to run.' }));
    runtime = await startRuntimeProcess({
      dataDir: dirs.dataDir,
      projectDirs: dirs.projectDirs,
      env: { HBCODE_CODEX_BIN: installedAgents().codexBin, HBCODE_CODEX_CONFIG_TOML: codexConfigToml(model.url) },
    });
    client = await runtime.connect();
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    await model?.close();
    if (dirs) fs.rmSync(`${dirs.projectDirs[0]}.worktrees`, { recursive: true, force: true });
    dirs?.remove();
  });

  it(
    'SES-10 Codex runs its commands in the worktree, and its workspace-write sandbox lets them write there',
    async () => {
      const projectId = (await client.call('projects.list')).projects[0]!.id;
      const { session } = await client.call('sessions.create', {
        projectId,
        agent: 'codex',
        settings: codexSettings({ sandbox: 'workspace-write', approvalPolicy: 'never' }),
        confirmLiftedGuardRails: true,
        worktree: { branch: 'codex-work' },
      });
      // Marked lines: the login shell may print its own complaints first in the sandbox.
      steps.push({
        command: 'echo "cwd=$(pwd)"; echo "branch=$(git branch --show-current)"; echo made > made-by-codex.txt',
      });
      const { commands } = await sendAndWait(client, session.id, 'Where are you?');
      expect(commands[0]!.exitCode).toBe(0);
      const output = (await readWholeOutput(client, session.id, commands[0]!)).toString('utf8');
      expect(output).toContain(`cwd=${session.worktree!.path}\nbranch=codex-work\n`);
      expect(fs.readFileSync(path.join(session.worktree!.path, 'made-by-codex.txt'), 'utf8')).toBe('made\n');
      expect(fs.existsSync(path.join(dirs.projectDirs[0]!, 'made-by-codex.txt'))).toBe(false);
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
