import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS } from '../fixtures/agentPackages';
import { codexWithoutBundledBwrap, pathWithout } from '../fixtures/codexSandboxHost';
import { codexConfigToml, codexTurnScript, type CodexStep } from '../fixtures/fakeCodexModel';
import { DESKTOP_CONTEXT, keptScreenshotPath, newPairingCode, PHONE_CONTEXT, sendCommand } from './appHarness';
import { pairedPage, useModelAppSuite } from './appSuite';

const COMMAND = 'echo "$((6*7))-in-the-app"';
/**
 * The command's row: Codex's own line (`/bin/bash -lc '…'`) when it announced the command, the
 * model's call when the row came from the model's items (Codex announces an instant failure only
 * now and then, SBX-2).
 */
const commandRowOf = (page: Page) => page.locator('[data-row="command"]').filter({ hasText: COMMAND });

/** SBX-2 in Chromium: on a machine without bubblewrap, what a person reads on the timeline. */
describe('Codex sandbox that cannot start, in the app', () => {
  const steps: CodexStep[] = [];
  const suite = useModelAppSuite(
    codexTurnScript(() => steps.shift() ?? { message: 'Nothing to run.' }),
    {
      // No `bwrap` on Codex's PATH and no bubblewrap bundled next to its executable.
      runtime: ({ modelUrl }) => ({
        env: {
          HBCODE_CODEX_BIN: codexWithoutBundledBwrap(),
          PATH: pathWithout('bwrap'),
          HBCODE_CODEX_CONFIG_TOML: codexConfigToml(modelUrl),
        },
      }),
      timeoutMs: AGENT_INSTALL_TIMEOUT_MS,
    },
  );
  let phone: Page;
  let desktop: Page;

  beforeAll(async () => {
    phone = await pairedPage(suite, PHONE_CONTEXT);
    desktop = await pairedPage(suite, DESKTOP_CONTEXT, await newPairingCode(suite.runtime));
  }, AGENT_INSTALL_TIMEOUT_MS);

  it(
    'SBX-2 the command row and the message say the sandbox cannot start and offer the choices, at phone and desktop size',
    async () => {
      await phone.goto(`${suite.runtime.appOrigin}/#/`);
      await phone.getByLabel('Agent').first().selectOption('codex');
      await phone.getByRole('button', { name: 'New session' }).first().tap();
      steps.push({ command: COMMAND });
      await sendCommand(phone, 'Run it');
      const row = commandRowOf(phone);
      await row.locator('[data-status="failed"]').waitFor({ timeout: 90_000 });
      const rowText = (await row.textContent()) ?? '';
      for (const words of ["Codex's sandbox could not start", 'no bubblewrap', 'install bubblewrap', 'full access'])
        expect(rowText).toContain(words);
      expect(rowText).not.toMatch(/exit \d/);
      const failure = phone.locator('.message-failure');
      await failure.waitFor({ timeout: 90_000 });
      expect(await failure.textContent()).toContain('install bubblewrap');
      await phone.screenshot({ path: keptScreenshotPath('sbx', 'no-bubblewrap-phone-light') });
      await phone.emulateMedia({ colorScheme: 'dark' });
      await phone.screenshot({ path: keptScreenshotPath('sbx', 'no-bubblewrap-phone-dark') });

      // The same session on the desktop.
      await desktop.goto(`${suite.runtime.appOrigin}/#/`);
      await desktop.locator('button.list-button').first().click();
      const desktopRow = commandRowOf(desktop);
      await desktopRow.locator('[data-status="failed"]').waitFor({ timeout: 30_000 });
      expect(await desktopRow.textContent()).toContain('install bubblewrap');
      await desktop.screenshot({ path: keptScreenshotPath('sbx', 'no-bubblewrap-desktop-light') });
      await desktop.emulateMedia({ colorScheme: 'dark' });
      await desktop.screenshot({ path: keptScreenshotPath('sbx', 'no-bubblewrap-desktop-dark') });
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
