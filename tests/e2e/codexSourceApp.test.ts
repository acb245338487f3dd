import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../fixtures/agentPackages';
import { ownCodexHome } from '../fixtures/codexOwnHome';
import { codexConfigToml, codexTurnScript, type CodexStep } from '../fixtures/fakeCodexModel';
import { keptScreenshotPath } from './appHarness';
import { phoneAndDesktop, useModelAppSuite } from './appSuite';

const PROMPT = 'Tidy the changelog before the release';
const ANSWER = 'Tidied: three entries merged.';

/** The picker's row of the person's own conversation. */
const ownRow = (page: Page) =>
  page
    .getByRole('region', { name: 'Codex conversation files' })
    .locator('button.list-button')
    .filter({ hasText: PROMPT });

async function openPicker(page: Page, appOrigin: string): Promise<void> {
  await page.goto(`${appOrigin}/#/`);
  await page.getByLabel('Agent').first().selectOption('codex');
  await page.getByRole('button', { name: 'Open a Codex conversation file…' }).first().click();
  await ownRow(page).waitFor({ timeout: 30_000 });
}

/** SRC-1, SRC-2, SRC-4 in Chromium: a conversation the person had in their own terminal, opened from its file. */
describe('A Codex conversation opened from its file, in the app', () => {
  const own = ownCodexHome();
  const steps: CodexStep[] = [{ message: ANSWER }];
  let rollout = '';
  const suite = useModelAppSuite(
    codexTurnScript(() => steps.shift() ?? { message: 'Nothing more.' }),
    {
      runtime: async ({ modelUrl, projectDir }) => {
        // The person's own terminal conversation, before the runtime starts.
        await own.exec({ modelUrl, cwd: projectDir, prompt: PROMPT });
        return {
          env: {
            HBCODE_CODEX_BIN: installedAgents().codexBin,
            HBCODE_CODEX_CONFIG_TOML: codexConfigToml(modelUrl),
            HBCODE_AGENT_CACHE: path.join(os.tmpdir(), 'hbcode-no-agent-packages'),
            CODEX_HOME: own.home,
          },
        };
      },
      timeoutMs: AGENT_INSTALL_TIMEOUT_MS,
    },
  );
  let phone: Page;
  let desktop: Page;

  beforeAll(async () => {
    ({ phone, desktop } = await phoneAndDesktop(suite));
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(() => own.remove());

  it(
    'SRC-1 SRC-4 New session lists the file with its first prompt; opened, its history is on the timeline and no composer offers a message, at phone size',
    async () => {
      await openPicker(phone, suite.runtime.appOrigin);
      const row = ownRow(phone);
      expect(await row.textContent()).toContain('Your Codex');
      rollout = (await row.getAttribute('data-rollout-path')) ?? '';
      expect(rollout.startsWith(path.join(own.home, 'sessions') + path.sep)).toBe(true);
      await phone.emulateMedia({ colorScheme: 'light' });
      await phone.screenshot({ path: keptScreenshotPath('src', 'picker-phone-light') });
      await phone.emulateMedia({ colorScheme: 'dark' });
      await phone.screenshot({ path: keptScreenshotPath('src', 'picker-phone-dark') });

      await row.tap();
      await phone.getByText(ANSWER).waitFor({ timeout: 60_000 });
      await phone.getByText(PROMPT).first().waitFor();
      // The session is titled by the conversation's first prompt.
      expect(await phone.locator('.session-heading').first().textContent()).toContain(PROMPT);
      await phone.getByRole('note').filter({ hasText: 'your own Codex home' }).waitFor();
      expect(await phone.getByRole('textbox').count()).toBe(0);
      await phone.emulateMedia({ colorScheme: 'light' });
      await phone.screenshot({ path: keptScreenshotPath('src', 'opened-phone-light') });
      await phone.emulateMedia({ colorScheme: 'dark' });
      await phone.screenshot({ path: keptScreenshotPath('src', 'opened-phone-dark') });
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'SRC-2 the file gone: the timeline says it cannot be read and offers "Choose the file again", which reads it again once it is back',
    async () => {
      const kept = `${rollout}.kept`;
      fs.renameSync(rollout, kept);
      try {
        await phone.reload();
        const problem = phone.locator('[data-source-error="source_unavailable"]');
        await problem.waitFor({ timeout: 60_000 });
        expect(await problem.textContent()).toContain('cannot be read');
        await phone.getByRole('button', { name: 'Choose the file again' }).waitFor();
        await phone.emulateMedia({ colorScheme: 'light' });
        await phone.screenshot({ path: keptScreenshotPath('src', 'source-unavailable-phone-light') });
        await phone.emulateMedia({ colorScheme: 'dark' });
        await phone.screenshot({ path: keptScreenshotPath('src', 'source-unavailable-phone-dark') });
      } finally {
        fs.renameSync(kept, rollout);
      }
      await phone.getByRole('button', { name: 'Choose the file again' }).tap();
      await ownRow(phone).tap();
      await phone.locator('[data-source-error]').waitFor({ state: 'detached', timeout: 60_000 });
      await phone.getByText(ANSWER).waitFor({ timeout: 60_000 });
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'SRC-1 the list at desktop size, light and dark',
    async () => {
      await openPicker(desktop, suite.runtime.appOrigin);
      await desktop.emulateMedia({ colorScheme: 'light' });
      await desktop.screenshot({ path: keptScreenshotPath('src', 'picker-desktop-light') });
      await desktop.emulateMedia({ colorScheme: 'dark' });
      await desktop.screenshot({ path: keptScreenshotPath('src', 'picker-desktop-dark') });
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
