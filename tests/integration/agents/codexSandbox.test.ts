import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { CommandRow, TimelineRow } from '../../../lib/protocol/rows';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { codexSettings, createAgentSession, messageState, waitForRows } from '../../fixtures/agentSessions';
import { codexWithoutBundledBwrap, onPath, pathWithout, pinnedCodexNative } from '../../fixtures/codexSandboxHost';
import { codexConfigToml, codexTurnScript, type CodexStep } from '../../fixtures/fakeCodexModel';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { isCommandRow, readWholeOutput } from '../../fixtures/sessionHelpers';

/**
 * SBX-1, SBX-2 against the real pinned Codex and its real Linux sandbox (bubblewrap: the system
 * one where it is installed, as in CI, else the one Codex bundles), in sessions with the default
 * settings: the data folder in a home-like folder and under the temporary folder.
 */

const under = (dir: string, parent: string) => {
  const relative = path.relative(fs.realpathSync(parent), fs.realpathSync(dir));
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
};

const homeLikeDirs: string[] = [];
afterAll(() => {
  for (const dir of homeLikeDirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A folder outside every temporary folder (removed after the file): a home-like data folder, a place outside the workspace to try writing. */
function homeLikeDir(prefix: string): string {
  const base = path.join(os.homedir(), '.cache', 'hbcode-tests');
  fs.mkdirSync(base, { recursive: true });
  const dir = fs.mkdtempSync(path.join(base, prefix));
  homeLikeDirs.push(dir);
  for (const temp of [os.tmpdir(), '/tmp'])
    if (fs.existsSync(temp) && under(dir, temp)) throw new Error(`${dir} is under the temporary folder ${temp}`);
  return dir;
}

/** The shell computes the marker, so it is in the output only when the command really ran. */
const ran = (tag: string) => ({ command: `echo "$((6*7))-${tag}"`, marker: `42-${tag}` });

interface Host {
  model: FakeModelServer;
  runtime: RuntimeProcess;
  client: RpcClient;
  steps: CodexStep[];
}

async function startHost(options: { dataDir?: string; env: NodeJS.ProcessEnv }): Promise<Host> {
  const steps: CodexStep[] = [];
  const model = await startFakeModelServer(codexTurnScript(() => steps.shift() ?? { message: 'Nothing to run.' }));
  // No sandbox setting of ours: the profile runs with the defaults (workspace-write, on-request).
  const runtime = await startRuntimeProcess({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    env: { HBCODE_CODEX_CONFIG_TOML: codexConfigToml(model.url), ...options.env },
  });
  return { model, runtime, client: await runtime.connect(), steps };
}

async function stopHost(host: Host | undefined): Promise<void> {
  host?.client.close();
  await host?.runtime.stop();
  await host?.model.close();
}

/**
 * Sends one message whose turn runs `command` and waits until the run ends. A command the sandbox
 * refused may make Codex ask to run it outside the sandbox: every such request is declined.
 */
async function runCommand(
  host: Host,
  sessionId: string,
  command: string,
): Promise<{ rows: TimelineRow[]; row: CommandRow; output: string }> {
  host.steps.push({ command });
  const { client } = host;
  const { runId } = await client.call('chat.send', {
    sessionId,
    operationId: crypto.randomUUID(),
    text: `Run ${command}`,
  });
  const rows = await waitForRows(client, sessionId, (current) => {
    void client
      .call('approvals.list', { sessionId })
      .then(({ approvals }) =>
        Promise.all(
          approvals
            .filter((a) => a.decision === null && !a.expired)
            .map((a) => client.call('approvals.answer', { sessionId, approvalId: a.id, decision: 'decline' })),
        ),
      )
      .catch(() => undefined);
    const state = messageState(current, runId);
    return state === 'done' || state === 'failed';
  });
  const commands = rows.filter(isCommandRow).filter((r) => r.runId === runId);
  expect(commands).toHaveLength(1);
  const row = commands[0]!;
  return { rows, row, output: (await readWholeOutput(client, sessionId, row)).toString() };
}

const READ_ONLY_REFUSAL = /Read-only file system/;

const placements = [
  { name: 'a home-like folder, with the pinned Codex', home: true, codexOnPath: false },
  { name: 'the temporary folder, with a `codex` on PATH', home: false, codexOnPath: true },
] as const;

describe.each(placements)('Codex sandbox with the data folder in $name (SBX-1)', ({ home, codexOnPath }) => {
  let host: Host;
  let outside: string;
  let dataDir: string;

  beforeAll(async () => {
    const agents = installedAgents();
    outside = homeLikeDir('outside-');
    dataDir = home ? homeLikeDir('data-') : fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-data-'));
    if (!home) expect(under(dataDir, os.tmpdir())).toBe(true);
    let env: NodeJS.ProcessEnv = { HBCODE_CODEX_BIN: agents.codexBin };
    if (codexOnPath) {
      // The runtime finds `codex` on PATH when HBCODE_CODEX_BIN names none.
      const bin = homeLikeDir('bin-');
      fs.symlinkSync(pinnedCodexNative(), path.join(bin, 'codex'));
      env = { HBCODE_CODEX_BIN: '', PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` };
    }
    host = await startHost({ dataDir, env });
    // Which bubblewrap Codex runs here (none on PATH: the one it bundles).
    process.stdout.write(`codex sandbox: bwrap on PATH ${onPath('bwrap') ?? 'none'}\n`);
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    await stopHost(host);
    if (!home) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'SBX-1 a default session runs a command in the sandbox and its row shows the real output',
    async () => {
      const sessionId = await createAgentSession(host.client, 'codex');
      const { command, marker } = ran('workspace-write');
      const { row, output, rows } = await runCommand(
        host,
        sessionId,
        `${command} > made-in-workspace.txt && cat made-in-workspace.txt`,
      );
      expect(row).toMatchObject({ status: 'exited', exitCode: 0 });
      expect(output).toContain(`${marker}\n`);
      expect(fs.readFileSync(path.join(host.runtime.projectDir, 'made-in-workspace.txt'), 'utf8')).toBe(`${marker}\n`);
      expect(rows.find((r) => r.kind === 'message')).toMatchObject({ state: 'done' });
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    "SBX-1 a read-only session runs a command, and its write in the workspace is refused with the sandbox's reason",
    async () => {
      const sessionId = await createAgentSession(
        host.client,
        'codex',
        undefined,
        codexSettings({ sandbox: 'read-only' }),
      );
      const { command, marker } = ran('read-only');
      const { row, output } = await runCommand(host, sessionId, `${command}; echo no > read-only-write.txt`);
      expect(output).toContain(`${marker}\n`);
      expect(output).toMatch(READ_ONLY_REFUSAL);
      expect(row).toMatchObject({ status: 'exited' });
      expect(row.exitCode).not.toBe(0);
      expect(fs.existsSync(path.join(host.runtime.projectDir, 'read-only-write.txt'))).toBe(false);
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    "SBX-1 a default session's write outside the workspace is refused with the sandbox's reason, after the command ran",
    async () => {
      const sessionId = await createAgentSession(host.client, 'codex');
      const { command, marker } = ran('outside');
      const target = path.join(outside, 'escaped.txt');
      const { row, output } = await runCommand(host, sessionId, `${command}; echo no > ${target}`);
      expect(output).toContain(`${marker}\n`);
      expect(output).toMatch(READ_ONLY_REFUSAL);
      expect(row.exitCode).not.toBe(0);
      expect(fs.existsSync(target)).toBe(false);
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    "SBX-2 a write refused at once still has its row, with the sandbox's reason, even when Codex announces no item for it",
    async () => {
      const sessionId = await createAgentSession(
        host.client,
        'codex',
        undefined,
        codexSettings({ sandbox: 'read-only' }),
      );
      const { row, output } = await runCommand(host, sessionId, 'echo no > refused-at-once.txt');
      expect(output).toMatch(READ_ONLY_REFUSAL);
      expect(row.exitCode).not.toBe(0);
      expect(fs.existsSync(path.join(host.runtime.projectDir, 'refused-at-once.txt'))).toBe(false);
      // Which way the row came (Codex announces such a command only now and then).
      process.stdout.write(
        `refused-at-once row: ${fromModelItems(host, row) ? "from the model's items" : "from Codex's item events"}\n`,
      );
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it("SBX-1 the profile home is never under the Codex process's temporary folder: its sibling is", () => {
    const profiles = path.join(dataDir, 'codex', 'profiles');
    const [profile] = fs.readdirSync(profiles);
    expect(fs.readdirSync(path.join(profiles, profile!)).sort()).toEqual(['home', 'tmp']);
  });
});

/** Whether the runtime made `row` from the model's items because Codex announced no item for it. */
const fromModelItems = (host: Host, row: CommandRow) =>
  host.runtime
    .output()
    .split('\n')
    .some((line) => line.includes('codex command not announced') && line.includes(row.commandId));

describe('a Codex whose temporary folder holds its home: a refused folder (SBX-2)', () => {
  let host: Host;
  // With a system bubblewrap (CI installs one) Codex needs its helper links and refuses them here;
  // with only the one it bundles it needs none, and the command runs.
  const systemBwrap = onPath('bwrap') !== null;

  beforeAll(async () => {
    const bin = homeLikeDir('refusing-');
    const launcher = path.join(bin, 'codex');
    // The layout SBX-1 avoids, forced: Codex's TMPDIR is the folder that holds every profile home.
    fs.writeFileSync(
      launcher,
      `#!/bin/sh\nTMPDIR="$(dirname "$(dirname "$CODEX_HOME")")" exec ${JSON.stringify(pinnedCodexNative())} "$@"\n`,
      { mode: 0o755 },
    );
    host = await startHost({ env: { HBCODE_CODEX_BIN: launcher } });
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(() => stopHost(host));

  it.each(['workspace-write', 'read-only'] as const)(
    'SBX-2 in %s the command has its row, which says Codex refused the folder and offers the choices',
    async (sandbox) => {
      const sessionId = await createAgentSession(host.client, 'codex', undefined, codexSettings({ sandbox }));
      const { command, marker } = ran(`refused-${sandbox}`);
      const { row, output, rows } = await runCommand(host, sessionId, command);
      process.stdout.write(
        `refused-folder ${sandbox} row: ${fromModelItems(host, row) ? "from the model's items" : "from Codex's item events"}; bwrap on PATH: ${systemBwrap}\n`,
      );
      if (!systemBwrap) {
        expect(row).toMatchObject({ status: 'exited', exitCode: 0 });
        expect(output).toContain(`${marker}\n`);
        return;
      }
      expect(output).not.toContain(marker);
      expect(output).toMatch(/execvp codex-linux-sandbox/);
      expect(row).toMatchObject({ status: 'failed', exitCode: null });
      for (const words of [/sandbox could not start/, /refused/, /move the data folder/, /full access/])
        expect(row.error).toMatch(words);
      expect(rows.find((r) => r.kind === 'message')).toMatchObject({
        state: 'failed',
        failure: { code: 'codex_sandbox_unavailable', message: row.error },
      });
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});

describe('Codex sandbox on a machine without bubblewrap (SBX-2)', () => {
  let host: Host;

  beforeAll(async () => {
    // No `bwrap` on Codex's PATH and no bubblewrap bundled next to its executable.
    host = await startHost({ env: { HBCODE_CODEX_BIN: codexWithoutBundledBwrap(), PATH: pathWithout('bwrap') } });
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(() => stopHost(host));

  it(
    "SBX-2 the command's row and the session say the sandbox cannot start, with the choices; full access still runs it",
    async () => {
      const sessionId = await createAgentSession(host.client, 'codex');
      const { command, marker } = ran('no-bwrap');
      const { row, output, rows } = await runCommand(host, sessionId, command);
      expect(output).not.toContain(marker);
      expect(row).toMatchObject({ status: 'failed', exitCode: null });
      for (const words of [/sandbox could not start/, /no bubblewrap/, /install bubblewrap/, /full access/])
        expect(row.error).toMatch(words);
      const message = rows.find((r) => r.kind === 'message');
      expect(message).toMatchObject({ state: 'failed', failure: { code: 'codex_sandbox_unavailable' } });
      expect(message?.kind === 'message' && message.failure?.message).toBe(row.error);

      // The choice "run this session with full access" works on the same machine.
      // Lifting the sandbox is confirmed on this device (DEV-2).
      await host.client.call('sessions.configure', {
        sessionId,
        settings: codexSettings({ sandbox: 'danger-full-access' }),
        confirmLiftedGuardRails: true,
      });
      const again = await runCommand(host, sessionId, command);
      expect(again.row).toMatchObject({ status: 'exited', exitCode: 0 });
      expect(again.output).toContain(`${marker}\n`);
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
