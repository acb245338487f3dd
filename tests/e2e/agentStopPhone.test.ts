import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../server/runtime/paths';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS } from '../fixtures/agentPackages';
import { connectChromium } from '../fixtures/sharedChromium';
import { waitUntil } from '../fixtures/waitUntil';
import { commandRow, pairThroughLink, sendCommand, startupPairingCode } from './appHarness';
import {
  messageCard,
  newSession,
  sendUntil,
  startHangingClaudeTurn,
  startStopRig,
  tapStop,
  type StopRig,
} from './stopHarness';

const PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
};
const AFTER_STOP_REPLY = 'Hello after the stop.';

/** Kept screenshots of this feature (docs/screenshots, prefix `stop-`), light and dark. */
async function docScreenshots(page: Page, name: string): Promise<void> {
  const dir = path.join(REPO_ROOT, 'docs', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `stop-${name}-phone-light.png`) });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: path.join(dir, `stop-${name}-phone-dark.png`) });
  await page.emulateMedia({ colorScheme: 'light' });
}

/** The timeline's rows, oldest first: kind and state, or an agent text's text. */
function timelineShape(page: Page): Promise<string[]> {
  return page
    .locator(
      '[data-row="message"], [data-row="turnEnd"], [data-row="agentText"], [data-row="userText"], [data-row="rawItem"]',
    )
    .evaluateAll((rows) =>
      rows.map((row) => {
        const kind = row.getAttribute('data-row');
        const state = row.getAttribute('data-state') ?? row.getAttribute('data-status');
        return `${kind}:${state ?? row.textContent?.trim()}`;
      }),
    );
}

/** Waits for the timeline to have `expected` rows, then compares (so a mismatch says what is shown). */
async function expectShape(page: Page, expected: string[]): Promise<void> {
  const wanted = JSON.stringify(expected);
  await waitUntil(
    async () => JSON.stringify(await timelineShape(page)) === wanted,
    'the timeline shows the expected rows',
    60_000,
  ).catch(() => undefined);
  expect(await timelineShape(page)).toEqual(expected);
}

/**
 * ACC-6 in Chromium at phone size against the real runtime: Stop on a shell command and on a
 * Claude turn (real Claude Code, its model request held open) ends it, the row says cancelled,
 * and the message queued behind it runs. How long Stop takes is measured in bench/, not here.
 */
describe('Stop at phone size ends a shell command and a Claude turn; the queued message runs', () => {
  let rig: StopRig;
  let browser: Browser;
  let phone: Page;

  beforeAll(async () => {
    rig = await startStopRig();
    browser = await connectChromium();
    phone = await (await browser.newContext(PHONE)).newPage();
    await pairThroughLink(phone, rig.runtime.appOrigin, startupPairingCode(rig.runtime));
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await rig?.close();
  });

  it(
    'ACC-6 a shell command: Stop on its row cancels it and the queued command runs next',
    async () => {
      await newSession(phone, rig.runtime.appOrigin, 'shell');
      const long = await sendUntil(phone, 'sleep 600', 'running');
      await sendUntil(phone, 'echo after-the-shell-stop', 'queued');
      await tapStop(long, commandRow(phone, 'sleep 600').locator('[data-status="cancelled"]'));
      expect(await long.getAttribute('data-state')).toBe('cancelled');
      await commandRow(phone, 'echo after-the-shell-stop')
        .locator('[data-status="exited"]')
        .waitFor({ timeout: 90_000 });
      await docScreenshots(phone, 'shell');
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ACC-6 TL-7 a Claude turn: Stop on its message cancels it, its turn ends interrupted, and the queued message runs with its reply shown',
    async () => {
      await newSession(phone, rig.runtime.appOrigin, 'claude');
      const turn = await startHangingClaudeTurn(phone, rig, 'Think about it for a very long time');
      expect(await phone.getByRole('radio', { name: 'Queue after this turn' }).isChecked()).toBe(true);
      rig.steps.push({ message: AFTER_STOP_REPLY });
      await sendUntil(phone, 'Then say hello', 'queued');
      await tapStop(turn, messageCard(phone, 'Think about it for a very long time', 'cancelled'));
      expect(await turn.locator('[data-message-state]').textContent()).toBe('cancelled');
      await phone.locator('[data-row="agentText"]').filter({ hasText: AFTER_STOP_REPLY }).waitFor({ timeout: 120_000 });
      await messageCard(phone, 'Then say hello', 'done').waitFor({ timeout: 120_000 });
      expect(rig.steps).toEqual([]);
      // TL-7: the stopped turn ends as interrupted (not failed with Claude Code's diagnostics), above the message that waited for it.
      const expected = [
        'message:cancelled',
        'turnEnd:interrupted',
        'message:done',
        `agentText:${AFTER_STOP_REPLY}`,
        'turnEnd:completed',
      ];
      await expectShape(phone, expected);
      await docScreenshots(phone, 'claude');
      // TL-6: after a reload the rows come from Claude's saved conversation and the app's turn
      // records, and are the rows shown live (TL-3): the filler reply Claude Code saves for the
      // stopped turn on resuming and its interruption note are for the model, not rows (TL-8).
      // The reload keeps the session open: it is in the app's address (UX-1).
      await phone.reload();
      await expectShape(phone, expected);
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ACC-6 after a stopped Claude turn the session takes new messages as before',
    async () => {
      rig.steps.push({ message: 'Still here.' });
      await sendCommand(phone, 'Are you there?');
      await phone.locator('[data-row="agentText"]').filter({ hasText: 'Still here.' }).waitFor({ timeout: 120_000 });
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
