/**
 * ACC-6's budget at phone size: Stop ends a running shell command and a Claude turn within 5 s
 * of the tap. In Chromium at 390x844 on the real app: the time from the tap on a row's Stop until
 * that row says cancelled, against the same Stop sent as `run.cancel` by a script in the same run
 * (what the app and the browser add). Real Claude Code, its model request held open, against
 * the fake model server of the tests.
 */
import type { Page } from 'playwright-core';
import crypto from 'node:crypto';
import type { RpcClient } from '../../lib/client/rpcClient';
import { createAgentSession, messageState, waitForRows } from '../../tests/fixtures/agentSessions';
import { waitUntil } from '../../tests/fixtures/waitUntil';
import { launchChromium } from '../../tests/fixtures/browser';
import { commandRow, pairThroughLink, startupPairingCode } from '../../tests/e2e/appHarness';
import {
  messageCard,
  newSession,
  sendUntil,
  startHangingClaudeTurn,
  startStopRig,
  tapStop,
  type StopRig,
} from '../../tests/e2e/stopHarness';
import type { Benchmark, BenchOutcome } from '../lib/report';
import { median } from '../lib/rounds';

const ROUNDS = 3;
const BUDGET_MS = 5000;
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/**
 * The reference: `run.cancel` from a script, timed until the runtime announces the message row
 * cancelled (a notification, as the app gets it: a timeline read would time the history read).
 */
async function scriptedStop(
  client: RpcClient,
  sessionId: string,
  text: string,
  underWay: () => boolean,
): Promise<number> {
  const { runId } = await client.call('chat.send', { sessionId, operationId: crypto.randomUUID(), text });
  await waitForRows(client, sessionId, (rows) => messageState(rows, runId) === 'running');
  await waitUntil(underWay, 'the turn is under way', { timeoutMs: 120_000, intervalMs: 20 });
  let cancelledAt: number | null = null;
  const off = client.onNotification('timeline.row', ({ row }) => {
    if (row.kind === 'message' && row.runId === runId && row.state === 'cancelled') cancelledAt ??= performance.now();
  });
  try {
    const started = performance.now();
    await client.call('run.cancel', { sessionId, runId });
    await waitUntil(() => cancelledAt !== null, 'the runtime announces the row cancelled', {
      timeoutMs: 60_000,
      intervalMs: 5,
    });
    return cancelledAt! - started;
  } finally {
    off();
  }
}

async function tapShellStop(page: Page, rig: StopRig): Promise<number> {
  await newSession(page, rig.runtime.appOrigin, 'shell');
  const card = await sendUntil(page, 'sleep 600', 'running');
  return tapStop(card, commandRow(page, 'sleep 600').locator('[data-status="cancelled"]'));
}

async function tapClaudeStop(page: Page, rig: StopRig, round: number): Promise<number> {
  await newSession(page, rig.runtime.appOrigin, 'claude');
  const text = `Think for ever, round ${round}`;
  const card = await startHangingClaudeTurn(page, rig, text);
  return tapStop(card, messageCard(page, text, 'cancelled'));
}

export const stopPhone: Benchmark = {
  name: 'stop-phone',
  async run(progress): Promise<BenchOutcome> {
    const rig = await startStopRig();
    const browser = await launchChromium();
    const client = await rig.runtime.connect();
    try {
      const page = await (await browser.newContext(PHONE)).newPage();
      await pairThroughLink(page, rig.runtime.appOrigin, startupPairingCode(rig.runtime));
      const tapped = { shell: [] as number[], claude: [] as number[] };
      const scripted = { shell: [] as number[], claude: [] as number[] };
      for (let round = 0; round < ROUNDS; round++) {
        progress(`ACC-6 at phone size: round ${round + 1} of ${ROUNDS}`);
        tapped.shell.push(await tapShellStop(page, rig));
        tapped.claude.push(await tapClaudeStop(page, rig, round));
        scripted.shell.push(
          await scriptedStop(client, await createAgentSession(client, 'shell'), 'sleep 600', () => true),
        );
        const claudeSession = await createAgentSession(client, 'claude');
        rig.steps.push({ hang: true });
        scripted.claude.push(await scriptedStop(client, claudeSession, 'Think for ever', () => rig.steps.length === 0));
      }
      const line = (what: string, ours: number[], reference: number[]) => ({
        rule: 'ACC-6',
        label: `Stop until the ${what} row says cancelled (median)`,
        unit: 'ms' as const,
        better: 'lower' as const,
        oursName: 'tap in Chromium at phone size',
        referenceName: 'run.cancel from a script (notification)',
        ours: median(ours),
        reference: median(reference),
        target: null,
      });
      return {
        comparisons: [
          line('shell command', tapped.shell, scripted.shell),
          line('Claude turn', tapped.claude, scripted.claude),
        ],
        parameters: { rounds: ROUNDS, budgetMs: BUDGET_MS, viewport: PHONE.viewport },
        measurements: {
          tapShellMs: tapped.shell,
          tapClaudeMs: tapped.claude,
          scriptShellMs: scripted.shell,
          scriptClaudeMs: scripted.claude,
          withinBudget: [...tapped.shell, ...tapped.claude].every((ms) => ms < BUDGET_MS),
        },
        notes: [
          'Each tap is timed from just before Playwright taps Stop until the row shows cancelled; the Claude turn waits on a model request that never answers, so Stop goes through interrupt().',
        ],
      };
    } finally {
      client.close();
      await browser.close();
      await rig.close();
    }
  },
};
