import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { CommandRow, MessageRow, TimelineRow } from '../../../lib/protocol/rows';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { createShellSession, isCommandRow, waitForCommand } from '../../fixtures/sessionHelpers';
import { waitUntil } from '../../fixtures/waitUntil';

/** SES-4: at most one update per 100 ms per command. */
const INTERVAL_MS = 100;
/**
 * How late one notification may reach this process. Times are taken on arrival, so scheduling
 * delay on a busy two-core machine (seen: up to ~30 ms) can shorten one measured gap; it cannot
 * shorten a run of gaps by more than the delay of its first notification.
 */
const DELIVERY_JITTER_MS = 50;

/**
 * Every run of k consecutive gaps spans at least k intervals minus one delivery delay: a single
 * gap of 50 ms or less fails, and so does any throttle interval noticeably below 100 ms, once
 * enough updates accumulate (90 ms fails from six gaps on).
 */
function expectThrottled(times: number[]): void {
  for (let i = 0; i < times.length; i++) {
    for (let j = i + 1; j < times.length; j++) {
      const span = times[j]! - times[i]!;
      expect(
        span,
        `updates ${i}..${j} (gaps: ${times
          .slice(1)
          .map((t, k) => Math.round(t - times[k]!))
          .join(', ')})`,
      ).toBeGreaterThanOrEqual((j - i) * INTERVAL_MS - DELIVERY_JITTER_MS);
    }
  }
}

interface Received {
  at: number;
  sessionId: string;
  row: TimelineRow;
}

describe('SES-4 live timeline rows', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let sessionId: string;
  const received: Received[] = [];

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });
    client = await runtime.connect();
    client.onNotification('timeline.row', ({ sessionId: sid, row }) => {
      received.push({ at: performance.now(), sessionId: sid, row });
    });
    sessionId = await createShellSession(client);
  });
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    dirs?.remove();
  });

  const commandUpdates = (runId: string) =>
    received.filter(
      (r): r is Received & { row: CommandRow } =>
        r.sessionId === sessionId && isCommandRow(r.row) && r.row.runId === runId,
    );

  /** Waits until a notification shows the command settled (the last one a client will get). */
  async function waitForFinalNotification(runId: string): Promise<void> {
    await waitUntil(
      () => commandUpdates(runId).some((r) => r.row.complete && r.row.status !== 'running'),
      () => `a final notification arrives (seen: ${JSON.stringify(commandUpdates(runId).map((r) => r.row))})`,
    );
    // Anything after the final state would be a duplicate; give it the chance to show up.
    await new Promise((r) => setTimeout(r, 300));
  }

  it("SES-4 a running command's row updates arrive at most once per ~100 ms, growing, and the last one shows the final state", async () => {
    const text = 'for i in $(seq 1 30); do echo $i; sleep 0.02; done';
    const expectedOutput = Array.from({ length: 30 }, (_, i) => `${i + 1}\n`).join('');
    const { runId } = await client.call('chat.send', { sessionId, operationId: crypto.randomUUID(), text });
    await waitForFinalNotification(runId);

    const updates = commandUpdates(runId);
    // The command prints 30 times over roughly a second: without the throttle there would be ~30.
    expect(updates.length).toBeGreaterThanOrEqual(4);
    const span = updates.at(-1)!.at - updates[0]!.at;
    expect(updates.length).toBeLessThanOrEqual(Math.floor(span / 100) + 2);
    expectThrottled(updates.map((u) => u.at));
    for (let i = 1; i < updates.length; i++)
      expect(updates[i]!.row.byteLength).toBeGreaterThanOrEqual(updates[i - 1]!.row.byteLength);
    expect(updates[0]!.row).toMatchObject({ status: 'running', complete: false, command: text });
    expect(updates.slice(0, -1).every((u) => u.row.status === 'running')).toBe(true);
    expect(updates.some((u) => u.row.byteLength > 0 && u.row.byteLength < expectedOutput.length)).toBe(true);

    const last = updates.at(-1)!.row;
    expect(last).toMatchObject({
      status: 'exited',
      exitCode: 0,
      complete: true,
      sourceIncomplete: false,
      generation: 1,
      byteLength: expectedOutput.length,
    });
    expect(last).toEqual(await waitForCommand(client, sessionId, runId));
  });

  it('SES-4 two commands in different sessions are throttled separately, and each ends with its final state', async () => {
    const otherSession = await createShellSession(client);
    const text = 'for i in $(seq 1 15); do echo line$i; sleep 0.03; done';
    const [a, b] = await Promise.all([
      client.call('chat.send', { sessionId, operationId: crypto.randomUUID(), text }),
      client.call('chat.send', { sessionId: otherSession, operationId: crypto.randomUUID(), text }),
    ]);
    await waitForFinalNotification(a.runId);
    const updatesOf = (runId: string) => received.filter((r) => isCommandRow(r.row) && r.row.runId === runId);
    await waitUntil(
      () => updatesOf(b.runId).some((r) => (r.row as CommandRow).complete),
      'a final notification for the second session arrives',
    );
    const expectedBytes = Array.from({ length: 15 }, (_, i) => `line${i + 1}\n`).join('').length;
    for (const { runId } of [a, b]) {
      const updates = updatesOf(runId);
      expect(updates.length).toBeGreaterThanOrEqual(3);
      expectThrottled(updates.map((u) => u.at));
      expect(updates.at(-1)!.row).toMatchObject({ status: 'exited', complete: true, byteLength: expectedBytes });
    }
    expect(updatesOf(b.runId).every((u) => u.sessionId === otherSession)).toBe(true);
  });

  it('SES-4 a command that goes quiet long before it ends still gets an update with its final state', async () => {
    const { runId } = await client.call('chat.send', {
      sessionId,
      operationId: crypto.randomUUID(),
      text: 'printf quiet; sleep 0.4; exit 3',
    });
    await waitForFinalNotification(runId);
    const updates = commandUpdates(runId);
    expectThrottled(updates.map((u) => u.at));
    expect(updates.at(-2)!.row).toMatchObject({ status: 'running', byteLength: 5 });
    expect(updates.at(-1)!.row).toMatchObject({ status: 'exited', exitCode: 3, complete: true, byteLength: 5 });
    // The final update was not held back by the throttle: the command was quiet for 400 ms.
    expect(updates.at(-1)!.at - updates.at(-2)!.at).toBeGreaterThan(300);
  });

  it('SES-3 message rows go out live as a message is queued, runs and is done', async () => {
    const { runId } = await client.call('chat.send', {
      sessionId,
      operationId: crypto.randomUUID(),
      text: 'echo states',
    });
    await waitForFinalNotification(runId);
    const states = received
      .filter((r): r is Received & { row: MessageRow } => r.row.kind === 'message' && r.row.runId === runId)
      .map((r) => r.row.state);
    expect(states).toEqual(['queued', 'running', 'done']);
  });
});
