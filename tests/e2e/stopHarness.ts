import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { installedAgents } from '../fixtures/agentPackages';
import { claudeEnv, claudeTurnScript, type ClaudeStep } from '../fixtures/fakeClaudeModel';
import { startFakeModelServer, type FakeModelServer } from '../fixtures/fakeModelServer';
import { startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import { waitUntil } from '../fixtures/waitUntil';
import { sendCommand } from './appHarness';

/** What Claude says when no step is scripted. */
export const UNSCRIPTED_REPLY = 'Nothing scripted.';

/** The real runtime with real Claude Code against a fake model that answers `steps` in order (ACC-6). */
export interface StopRig {
  runtime: RuntimeProcess;
  model: FakeModelServer;
  steps: ClaudeStep[];
  close(): Promise<void>;
}

export async function startStopRig(): Promise<StopRig> {
  const agents = installedAgents();
  const steps: ClaudeStep[] = [];
  const model = await startFakeModelServer(claudeTurnScript(() => steps.shift() ?? { message: UNSCRIPTED_REPLY }));
  const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-stop-claude-'));
  const runtime = await startRuntimeProcess({ env: claudeEnv(model.url, configDir, agents.claudeBin) });
  return {
    runtime,
    model,
    steps,
    async close() {
      await runtime.stop();
      await model.close();
      fs.rmSync(configDir, { recursive: true, force: true });
    },
  };
}

/** A new session of `agent` from the sessions screen, its composer on screen. */
export async function newSession(page: Page, appOrigin: string, agent: 'shell' | 'claude' | 'codex'): Promise<void> {
  await page.goto(`${appOrigin}/#/`);
  // At phone size an open session takes the whole screen: back to the list first.
  const back = page.getByRole('button', { name: 'Back to sessions' });
  if (await back.isVisible()) await back.tap();
  await page.getByLabel('Agent').first().selectOption(agent);
  await page.getByRole('button', { name: 'New session' }).first().tap();
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
}

/** The card of the message whose text (or command line) contains `text`, in `state` when one is named. */
export function messageCard(page: Page, text: string, state?: string): Locator {
  return page
    .locator(state ? `[data-row="message"][data-state="${state}"]` : '[data-row="message"]')
    .filter({ hasText: text });
}

/** Sends a message and waits until its card says `state`. */
export async function sendUntil(page: Page, text: string, state: string, timeout = 90_000): Promise<Locator> {
  await sendCommand(page, text);
  await messageCard(page, text, state).waitFor({ timeout });
  return messageCard(page, text);
}

/** Taps the card's Stop and waits for `cancelled` to show; the time from the tap, in ms (measured, never asserted). */
export async function tapStop(card: Locator, cancelled: Locator, timeout = 60_000): Promise<number> {
  const stop = card.getByRole('button', { name: 'Stop' });
  await stop.waitFor({ timeout });
  const tapped = performance.now();
  await stop.tap();
  await cancelled.waitFor({ timeout });
  return performance.now() - tapped;
}

/** A Claude turn that waits on its model for ever: sent, and its model request under way (the step taken). */
export async function startHangingClaudeTurn(page: Page, rig: StopRig, text: string): Promise<Locator> {
  rig.steps.push({ hang: true });
  const card = await sendUntil(page, text, 'running');
  await waitUntil(() => rig.steps.length === 0, 'the model request of the turn is under way', { timeoutMs: 120_000 });
  return card;
}
