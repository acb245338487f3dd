import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS } from '../fixtures/agentPackages';
import type { CodexStep } from '../fixtures/fakeCodexModel';
import { commandRow, screenshotPath, scrollRowIntoView, sendCommand, waitCommandFinished } from './appHarness';
import { pairedPage, useSandboxedCodexAppSuite } from './appSuite';
import { docsScreenshotPath } from './screensHarness';

describe('Agents in the app, in Chromium against the real runtime and the real Codex', () => {
  const steps: CodexStep[] = [];
  const suite = useSandboxedCodexAppSuite(steps, { message: 'Nothing to run.' });
  let page: Page;

  beforeAll(async () => {
    page = await pairedPage(suite);
  }, AGENT_INSTALL_TIMEOUT_MS);

  it(
    'SES-2 the app offers only the agents the runtime can run, and an approval request is answered with Allow',
    async () => {
      const select = page.getByLabel('Agent').first();
      await page.locator('option[value="claude"][disabled]').first().waitFor({ state: 'attached' });
      expect(await page.locator('option[value="codex"]').first().isDisabled()).toBe(false);
      await select.selectOption('codex');
      await page.getByRole('button', { name: 'New session' }).first().click();
      steps.push({ command: 'echo allowed-from-the-app', escalate: true });
      await sendCommand(page, 'Run it outside the sandbox');
      const request = page.getByRole('group', { name: 'Approval request' });
      await request.waitFor({ timeout: 90_000 });
      expect(await request.textContent()).toContain('echo allowed-from-the-app');
      // ACC-4: the command Codex asks about waits for the person: no timer, no Stop on it.
      const asked = commandRow(page, "/bin/bash -lc 'echo allowed-from-the-app'");
      await asked.locator('[data-status="waiting-approval"]').waitFor({ timeout: 30_000 });
      expect(await asked.locator('[data-status]').first().textContent()).toBe('waiting for your approval');
      const card = page.locator('.card').filter({ has: asked });
      expect(await card.getByRole('button', { name: 'Stop' }).count()).toBe(0);
      for (const [size, viewport] of [
        ['phone', { width: 390, height: 844 }],
        ['desktop', { width: 1440, height: 900 }],
      ] as const) {
        await page.setViewportSize(viewport);
        for (const colorScheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme });
          await scrollRowIntoView(card);
          await page.screenshot({ path: docsScreenshotPath(`approval-waiting-${size}-${colorScheme}`) });
        }
      }
      await page.emulateMedia({ colorScheme: 'light' });
      await page.screenshot({ path: screenshotPath('agent-approval-request') });
      await request.getByRole('button', { name: 'Allow', exact: true }).click();
      await request.waitFor({ state: 'detached' });
      const row = commandRow(page, "/bin/bash -lc 'echo allowed-from-the-app'");
      await row.waitFor({ timeout: 90_000 });
      expect(await waitCommandFinished(page, "/bin/bash -lc 'echo allowed-from-the-app'")).toBe('exit 0');
      // The turn's closing text: an agent text row once the timeline shows Codex's items (TL-1).
      await page.locator('[data-row="agentText"]').filter({ hasText: 'Done.' }).waitFor({ timeout: 90_000 });
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
