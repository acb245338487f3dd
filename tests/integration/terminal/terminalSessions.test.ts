import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RpcError, type RpcClient } from '../../../lib/client/rpcClient';
import { MAX_TERMINAL_INPUT_CHARS } from '../../../lib/protocol/terminal';
import { killLeftovers, pollUntil } from '../../fixtures/processTree';
import { RawRpcSocket, errorOf } from '../../fixtures/rawSocket';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { createShellSession } from '../../fixtures/sessionHelpers';
import {
  createTerminalSession,
  processAlive,
  readStoredOutput,
  sessionMembers,
  TerminalWatch,
  terminalTestEnv,
} from '../../fixtures/terminalSession';
import { waitUntil } from '../../fixtures/waitUntil';

async function rpcError(call: Promise<unknown>): Promise<RpcError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
}

/**
 * The jobs here ignore the hangup, so each stop lasts its whole grace before SIGKILL: a fraction
 * of a second here, the defaults' 2 s in use.
 */
const SHORT_GRACES = { HBCODE_TERMINAL_HANGUP_GRACE_MS: '250', HBCODE_COMMAND_KILL_GRACE_MS: '250' };

/** Opens the terminal and learns its shell's pid from the shell itself. */
async function openShell(client: RpcClient, sessionId: string, size = { cols: 100, rows: 30 }) {
  const watch = new TerminalWatch(client, sessionId);
  const opened = await watch.open(size);
  // Typed before the shell reads its terminal, a line may be dropped when readline sets it up.
  await watch.prompt();
  const pid = Number((await watch.run('echo "PID=$$."', /PID=(\d+)\./))[1]);
  return { watch, opened, pid };
}

/**
 * TERM-1…TERM-5 over a real WebSocket against the real runtime: a login shell in a PTY, its
 * bounded input and size, its screen stored as command output that outlives the runtime, and its
 * processes stopped on delete and after a runtime SIGKILL.
 */
describe('TERM-1 terminal sessions', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let client: RpcClient;

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    runtime = await startRuntimeProcess({
      dataDir: dirs.dataDir,
      projectDirs: dirs.projectDirs,
      env: { ...terminalTestEnv(), ...SHORT_GRACES },
    });
    client = await runtime.connect();
  }, 60_000);

  afterAll(async () => {
    client.close();
    await runtime.kill();
    for (const dir of dirs.projectDirs) killLeftovers(dir);
    dirs.remove();
  });

  afterEach(() => {
    // A failed test must not leave shells in the project folder for the next one.
    for (const dir of dirs.projectDirs) killLeftovers(dir);
  });

  it('TERM-2 bad input and sizes get clear errors and the shell keeps working', async () => {
    const sessionId = await createTerminalSession(client);
    const { watch } = await openShell(client, sessionId);
    const raw = await RawRpcSocket.authenticated(runtime);
    try {
      const tooLong = errorOf(
        await raw.request('terminal.input', { sessionId, data: 'x'.repeat(MAX_TERMINAL_INPUT_CHARS + 1) }),
      );
      expect(tooLong).toMatchObject({ data: { code: 'invalid_params' } });
      expect(tooLong.message).toMatch(/data/);
      expect(errorOf(await raw.request('terminal.input', { sessionId, data: '' })).message).toMatch(/data/);
      expect(errorOf(await raw.request('terminal.input', { sessionId, data: 'ls', extra: 1 })).message).toMatch(
        /extra|Unrecognized/i,
      );
      for (const size of [
        { cols: 0, rows: 24 },
        { cols: 80, rows: 501 },
        { cols: 80.5, rows: 24 },
        { cols: 5000, rows: 24 },
      ]) {
        const error = errorOf(await raw.request('terminal.resize', { sessionId, ...size }));
        expect(error).toMatchObject({ data: { code: 'invalid_params' } });
        expect(error.message).toMatch(/cols|rows/);
      }
    } finally {
      raw.close();
    }
    // A session of another kind takes no keystrokes; a terminal takes no messages.
    const shellSession = await createShellSession(client);
    expect((await rpcError(client.call('terminal.input', { sessionId: shellSession, data: 'ls\r' }))).message).toMatch(
      /not a terminal session/,
    );
    expect(
      (await rpcError(client.call('chat.send', { sessionId, operationId: crypto.randomUUID(), text: 'ls' }))).message,
    ).toMatch(/terminal\.input/);
    expect((await rpcError(client.call('terminal.input', { sessionId: 'no-such-session', data: 'ls\r' }))).code).toBe(
      'not_found',
    );
    // Nothing of that reached the shell, which still answers.
    await watch.run('echo still-$((40+2))', /still-42/);
    await client.call('sessions.delete', { sessionId });
  });

  it('TERM-1 TERM-2 TERM-3 a login shell in a PTY in the project folder: tty, stty size follows resize, every byte is stored', async () => {
    const sessionId = await createTerminalSession(client);
    const { watch, opened } = await openShell(client, sessionId, { cols: 100, rows: 30 });
    expect(opened.running).toBe(true);
    const row = opened.rows.at(-1)!;
    expect(row).toMatchObject({ kind: 'command', status: 'running', sessionId });
    await watch.run('tty', /\/dev\/pts\/\d+/);
    await watch.run('pwd', new RegExp(dirs.projectDirs[0]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    await watch.run('shopt -q login_shell && echo LOGIN-yes', /LOGIN-yes/);
    await watch.run('stty size', /30 100/);
    await client.call('terminal.resize', { sessionId, cols: 132, rows: 43 });
    await watch.run('stty size', /43 132/);

    // The store holds exactly the bytes every device saw live (OUT-1, TERM-3).
    const live = watch.bytes();
    const stored = await waitUntil(async () => {
      const bytes = await readStoredOutput(client, sessionId, row);
      return bytes.length >= live.length ? bytes : null;
    }, 'every live byte is stored');
    expect(stored.subarray(0, live.length).equals(live)).toBe(true);
    await client.call('sessions.delete', { sessionId });
  });

  it('TERM-4 a second device attached to the same terminal sees the same bytes', async () => {
    const sessionId = await createTerminalSession(client);
    const { watch } = await openShell(client, sessionId);
    const second = await runtime.connect();
    try {
      const secondWatch = new TerminalWatch(second, sessionId);
      await secondWatch.open({ cols: 100, rows: 30 });
      const from = watch.text().length;
      await secondWatch.type('echo from-the-$((2*1))nd-device\r');
      await watch.waitFor(/from-the-2nd-device/, from);
      await secondWatch.waitFor(/from-the-2nd-device/);
      // The second device sees the same screen: the same bytes from the shell's first one on.
      await waitUntil(
        () => secondWatch.bytes().length === watch.bytes().length,
        'both devices have the same number of bytes',
      );
      expect(secondWatch.bytes().equals(watch.bytes())).toBe(true);
    } finally {
      second.close();
    }
    await client.call('sessions.delete', { sessionId });
  });

  it('TERM-5 delete stops the shell and its jobs (top in its own group, a background sleep)', async () => {
    const sessionId = await createTerminalSession(client);
    const { watch, pid } = await openShell(client, sessionId);
    await watch.type('sleep 7654 & top\r');
    const members = await pollUntil(() => {
      const found = sessionMembers(pid);
      return found.some((p) => p.command === 'top') && found.some((p) => p.command === 'sleep 7654')
        ? found
        : undefined;
    }, 'top and the sleep run in the terminal');
    // An interactive shell gives each job its own group: a kill of the shell's group alone would miss them.
    expect(members.find((p) => p.command === 'top')!.pgrp).not.toBe(pid);
    expect(await client.call('sessions.delete', { sessionId })).toEqual({});
    for (const member of members)
      expect(processAlive(member.pid), `${member.command} (${member.pid}) is gone`).toBe(false);
    expect(sessionMembers(pid)).toEqual([]);
  });

  it('TERM-3 TERM-5 a runtime SIGKILL and restart keep the scrollback and leave no shell process', async () => {
    const sessionId = await createTerminalSession(client);
    const { watch, pid } = await openShell(client, sessionId);
    const marker = `before-the-crash-${crypto.randomUUID().slice(0, 8)}`;
    await watch.run(`echo ${marker} > crash-note.txt; cat crash-note.txt`, new RegExp(`${marker}\\r?\\n`));
    // A job that ignores the hangup the kernel sends when the dead runtime's PTY closes.
    await watch.type("(trap '' HUP; exec sleep 8765) &\r");
    const sleeper = await pollUntil(
      () => sessionMembers(pid).find((p) => p.command === 'sleep 8765'),
      'the background sleep runs',
    );
    const liveBytes = watch.bytes();
    client.close();
    await runtime.kill();
    // Nothing of the dead runtime stopped the job: it outlives the hangup.
    await pollUntil(() => !processAlive(pid), 'the shell took the hangup');
    expect(processAlive(sleeper.pid)).toBe(true);

    runtime = await runtime.restart();
    client = await runtime.connect();
    // Start-up stopped the shell and its job before anything else (TERM-5).
    await pollUntil(() => !processAlive(pid) && !processAlive(sleeper.pid), 'the old shell and its sleep are gone');
    expect(sessionMembers(pid)).toEqual([]);

    const reopened = new TerminalWatch(client, sessionId);
    const opened = await reopened.open({ cols: 100, rows: 30 });
    await reopened.prompt();
    expect(opened.rows.length).toBe(2);
    const [before, now] = opened.rows;
    expect(before).toMatchObject({ status: 'failed', complete: true });
    expect(now).toMatchObject({ status: 'running' });
    // The scrollback the phone saw before the crash reads back whole from the store.
    const stored = await readStoredOutput(client, sessionId, before!);
    expect(stored.length).toBeGreaterThanOrEqual(liveBytes.length);
    expect(stored.subarray(0, liveBytes.length).equals(liveBytes)).toBe(true);
    expect(stored.toString('utf8')).toContain(marker);
    // And a new shell runs in its place.
    const newPid = Number((await reopened.run('echo "PID=$$."', /PID=(\d+)\./))[1]);
    expect(newPid).not.toBe(pid);
    expect(fs.readFileSync(path.join(dirs.projectDirs[0]!, 'crash-note.txt'), 'utf8')).toContain(marker);
    await client.call('sessions.delete', { sessionId });
    expect(processAlive(newPid)).toBe(false);
  });

  it('TERM-5 runtime shutdown hangs the terminal up: the runtime exits 0 with nothing of it left, and the row says stopped', async () => {
    const sessionId = await createTerminalSession(client);
    const { watch, pid } = await openShell(client, sessionId);
    await watch.type("(trap '' HUP; exec sleep 6543) & top\r");
    const members = await pollUntil(() => {
      const found = sessionMembers(pid);
      return found.some((p) => p.command === 'top') && found.some((p) => p.command === 'sleep 6543')
        ? found
        : undefined;
    }, 'top and the sleep run in the terminal');
    client.close();
    expect(await runtime.stop()).toBe(0);
    for (const member of members)
      expect(processAlive(member.pid), `${member.command} (${member.pid}) is gone`).toBe(false);

    runtime = await runtime.restart();
    client = await runtime.connect();
    const { rows } = await client.call('sessions.timeline', { sessionId });
    expect(rows.find((row) => row.kind === 'command')).toMatchObject({
      status: 'cancelled',
      error: 'Stopped because the runtime shut down.',
    });
    await client.call('sessions.delete', { sessionId });
  });
});
