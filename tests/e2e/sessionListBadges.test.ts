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
async function docScreenshots(page: Page, size: keyof typeof SIZES): Promise<void> {
  await page.screenshot({ path: docsScreenshotPath(`sessions-list-badges-${size}-light`) });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: docsScreenshotPath(`sessions-list-badges-${size}-dark`) });
  await page.emulateMedia({ colorScheme: 'light' });
}

describe('The sessions list in Chromium, against the real runtime and the real Codex', () => {
  const steps: CodexStep[] = [];
  const suite = useSandboxedCodexAppSuite(steps, { message: 'Done.\n\n> Note: **nothing** else to run.\n```' });
  let page: Page;

  beforeAll(async () => {
    page = await pairedPage(suite, { viewport: SIZES.phone, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  }, AGENT_INSTALL_TIMEOUT_MS);

  it('UX-8 the list shows "Waiting for approval" while an approval is pending, the first message as the whole title at phone width, and the badge gone once answered', async () => {
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
    expect(await title.evaluate((el) => el.scrollHeight <= el.clientHeight + 1 && el.scrollWidth <= el.clientWidth + 1)).toBe(true);
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
    await page.evaluate(() => {
      location.hash = '#/';
    });
    await waitUntil(async () => (await entry.locator('[data-session-state]').count()) === 0, 'the badge goes once the approval is answered and the turn is done');
    // The preview (for Codex, its last command or text) is plain text, never raw Markdown.
    expect(await entry.locator('[data-last-activity]').textContent()).not.toMatch(/```|^> |\*\*/);
  }, AGENT_TEST_TIMEOUT_MS);
});
