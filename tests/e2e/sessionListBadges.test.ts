import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS } from '../fixtures/agentPackages';
import type { CodexStep } from '../fixtures/fakeCodexModel';
import { waitUntil } from '../fixtures/waitUntil';
import { sendCommand } from './appHarness';
import { pairedPage, useSandboxedCodexAppSuite } from './appSuite';
import { docsScreenshotPath } from './screensHarness';

const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;

/** Kept screenshots of this feature (docs/screenshots), light and dark. */
async function docScreenshots(page: Page, size: keyof typeof SIZES, name = 'sessions-list-badges'): Promise<void> {
  await page.screenshot({ path: docsScreenshotPath(`${name}-${size}-light`) });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: docsScreenshotPath(`${name}-${size}-dark`) });
  await page.emulateMedia({ colorScheme: 'light' });
}

const showList = (page: Page) =>
  page.evaluate(() => {
    location.hash = '#/';
  });

describe('The sessions list in Chromium, against the real runtime and the real Codex', () => {
  const steps: CodexStep[] = [];
  const suite = useSandboxedCodexAppSuite(steps, { message: 'Done.\n\n> Note: **nothing** else to run.\n```' });
  let page: Page;

  beforeAll(async () => {
    page = await pairedPage(suite, { viewport: SIZES.phone, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  }, AGENT_INSTALL_TIMEOUT_MS);

  it(
    'UX-8 the list shows "Waiting for approval" while an approval is pending, the first message as the whole title at phone width, and the badge gone once answered',
    async () => {
      const message = 'Please run the release check outside the sandbox';
      await page.getByLabel('Agent').first().selectOption('codex');
      await page.getByRole('button', { name: 'New session' }).first().click();
      steps.push({ command: 'echo from-the-list', escalate: true });
      await sendCommand(page, message);
      const request = page.getByRole('group', { name: 'Approval request' });
      await request.waitFor({ timeout: 90_000 });

      // The list, opened while the approval waits: the badge in words and the whole first message.
      await page.evaluate(() => {
        location.hash = '#/';
      });
      const entry = page.locator('li[data-session-id]').first();
      const badge = entry.locator('[data-session-state="waitingApproval"]');
      await badge.waitFor();
      expect(await badge.textContent()).toBe('Waiting for approval');
      const title = entry.locator('[data-session-title]');
      expect(await title.textContent()).toBe(message);
      // Whole: the text is not cut (its box holds all of it) and nothing scrolls sideways.
      expect(
        await title.evaluate((el) => el.scrollHeight <= el.clientHeight + 1 && el.scrollWidth <= el.clientWidth + 1),
      ).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await docScreenshots(page, 'phone');
      await page.setViewportSize(SIZES.desktop);
      await badge.waitFor();
      await docScreenshots(page, 'desktop');
      await page.setViewportSize(SIZES.phone);

      // Answered from the session, the badge goes; the preview is the agent's closing line as plain text.
      await entry.locator('.session-entry').click();
      await request.getByRole('button', { name: 'Allow', exact: true }).click();
      await request.waitFor({ state: 'detached' });
      await page.locator('[data-row="agentText"]').filter({ hasText: 'Done.' }).waitFor({ timeout: 90_000 });
      // The turn ends on screen (the message done), so it is seen: no "Done, unread" after it either.
      await page
        .locator('[data-row="message"][data-state="done"]')
        .filter({ hasText: message })
        .waitFor({ timeout: 90_000 });
      await page.evaluate(() => {
        location.hash = '#/';
      });
      await waitUntil(
        async () => (await entry.locator('[data-session-state]').count()) === 0,
        'the badge goes once the approval is answered and the turn is done',
      );
      // The preview (for Codex, its last command or text) is plain text, never raw Markdown.
      expect(await entry.locator('[data-last-activity]').textContent()).not.toMatch(/```|^> |\*\*/);
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'UX-8 a turn that ends while the person is on the list shows "Done, unread" there, still after a reload (kept per device on the runtime), and the badge goes once the session is opened',
    async () => {
      const client = await suite.runtime.connect();
      const projectDir = (await client.call('projects.list')).projects[0]!.directory;
      client.close();
      // The command waits for this file, so the turn is sure to end only once the person is on the list.
      const gate = path.join(projectDir, 'release-gate');
      fs.rmSync(gate, { force: true });
      const message = 'Wait for the release gate, then report';
      await showList(page);
      await page.getByLabel('Agent').first().selectOption('codex');
      await page.getByRole('button', { name: 'New session' }).first().click();
      steps.push({ command: 'while [ ! -e release-gate ]; do sleep 0.1; done; echo gate-open' });
      await sendCommand(page, message);
      await page
        .locator('[data-row="command"]')
        .filter({ hasText: 'release-gate' })
        .first()
        .waitFor({ timeout: 90_000 });

      await showList(page);
      const entry = page
        .locator('li[data-session-id]')
        .filter({ has: page.locator('[data-session-title]', { hasText: message }) });
      await entry.locator('[data-session-state="running"]').waitFor();
      fs.writeFileSync(gate, '');
      const unread = entry.locator('[data-session-state="unread"]');
      await unread.waitFor({ timeout: 90_000 });
      expect(await unread.textContent()).toBe('Done, unread');
      // Only that session: the one opened and answered before has nothing new.
      expect(await page.locator('[data-session-state="unread"]').count()).toBe(1);
      await docScreenshots(page, 'phone', 'sessions-list-unread');
      await page.setViewportSize(SIZES.desktop);
      await unread.waitFor();
      await docScreenshots(page, 'desktop', 'sessions-list-unread');
      await page.setViewportSize(SIZES.phone);

      // What this device has seen is kept on the runtime, not in the page: a reload shows it again.
      await page.reload();
      await unread.waitFor();

      // Opened, the session is seen on this device: back on the list, its badge is gone.
      await entry.locator('.session-entry').click();
      await page.locator('[data-row="agentText"]').filter({ hasText: 'Done.' }).waitFor({ timeout: 90_000 });
      // The list answered by the runtime (not this device's copy, which never shows badges) has none.
      const fromRuntime = page.locator('[data-sessions-from="runtime"]');
      await showList(page);
      await fromRuntime.waitFor();
      expect(await entry.count()).toBe(1);
      expect(await page.locator('li[data-session-id] [data-session-state]').count()).toBe(0);
      await page.reload();
      await fromRuntime.waitFor();
      expect(await entry.count()).toBe(1);
      expect(await page.locator('li[data-session-id] [data-session-state]').count()).toBe(0);
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
