import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../fixtures/agentPackages';
import { ownCodexHome, type OwnCodexHome } from '../fixtures/codexOwnHome';
import { codexConfigToml, codexTurnScript } from '../fixtures/fakeCodexModel';
import { keptScreenshotPath, PHONE_CONTEXT, sendCommand } from './appHarness';
import { pairedPage, useModelAppSuite } from './appSuite';

const PROMPT = 'Sketch the checkout flow';
const DESKTOP = { width: 1440, height: 900 };

/** Kept screenshots (docs/screenshots), light and dark. */
async function lightAndDark(page: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: keptScreenshotPath('new-session-codex-home', `${name}-${scheme}`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** New session's choices for Codex, and the person's own conversation in its picker. */
async function openPicker(page: Page) {
  await page.getByLabel('Agent').first().selectOption('codex');
  await page.getByRole('button', { name: 'Options' }).first().click();
  const saved = page
    .getByRole('radiogroup', { name: 'Continue a Codex conversation' })
    .getByRole('radio')
    .filter({ hasText: PROMPT });
  await saved.waitFor({ timeout: 60_000 });
  return saved;
}

// ACC-11 in Chromium at phone size: a thread `codex exec` saved in the person's own Codex home
// (their ~/.codex) is offered by New session, opens with its history and goes on in the app.
describe("New session offers a Codex thread of the person's own Codex home (ACC-11)", () => {
  let own: OwnCodexHome;
  let projectDir = '';
  const replies: string[] = [];
  const suite = useModelAppSuite(
    codexTurnScript(() => ({ message: replies.shift() ?? 'Nothing more.' })),
    {
      runtime: ({ modelUrl, projectDir: dir }) => {
        projectDir = dir;
        own = ownCodexHome();
        return {
          env: {
            HBCODE_CODEX_BIN: installedAgents().codexBin,
            HBCODE_CODEX_CONFIG_TOML: codexConfigToml(modelUrl),
            CODEX_HOME: own.home,
          },
        };
      },
      timeoutMs: AGENT_INSTALL_TIMEOUT_MS,
    },
  );
  let page: Page;

  beforeAll(async () => {
    replies.push('Cart, address, payment.');
    await own.exec({ modelUrl: suite.model.url, cwd: projectDir, prompt: PROMPT });
    page = await pairedPage(suite, PHONE_CONTEXT);
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(() => own?.remove());

  it(
    "ACC-11 the picker lists it as from your Codex home; picked, it opens with its history and the next message goes on from it, the person's file untouched",
    async () => {
      const sessions = path.join(own.home, 'sessions');
      const [file] = fs
        .readdirSync(sessions, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.jsonl'))
        .map((f) => path.join(sessions, f));
      const before = fs.readFileSync(file!);

      // The same list at desktop size first (the list's layout changes with the size, and the choices with it).
      await page.setViewportSize(DESKTOP);
      const listed = await openPicker(page);
      expect(await listed.locator('.conversation-meta').textContent()).toMatch(
        /\d+(\.\d+)? (B|KiB) · .*from your Codex home/,
      );
      await lightAndDark(page, 'picker-desktop');
      await page.setViewportSize(PHONE_CONTEXT.viewport!);
      await page.reload();

      const saved = await openPicker(page);
      expect(await saved.locator('.conversation-meta').textContent()).toMatch(
        /\d+(\.\d+)? (B|KiB) · .*from your Codex home/,
      );
      await saved.click();
      expect(await saved.getAttribute('aria-checked')).toBe('true');
      await saved.scrollIntoViewIfNeeded();
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await lightAndDark(page, 'picker-phone');

      await page.getByRole('button', { name: 'Start this session' }).click();
      await page.locator('[data-row="userText"]').filter({ hasText: PROMPT }).waitFor({ timeout: 60_000 });
      await page.locator('[data-row="agentText"]').filter({ hasText: 'Cart, address, payment.' }).waitFor();

      replies.push('Payment last.');
      await sendCommand(page, 'Which step comes last?');
      await page.locator('[data-row="agentText"]').filter({ hasText: 'Payment last.' }).waitFor({ timeout: 90_000 });
      const input = JSON.stringify(suite.model.requests.at(-1)!.body);
      expect(input).toContain(PROMPT);
      expect(input).toContain('Which step comes last?');
      expect(fs.readFileSync(file!).equals(before)).toBe(true);
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
