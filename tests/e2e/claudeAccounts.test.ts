import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../fixtures/agentPackages';
import { connectChromium } from '../fixtures/sharedChromium';
import { createAgentSession, sendAndWait } from '../fixtures/agentSessions';
import { claudeEnv, claudeTurnScript } from '../fixtures/fakeClaudeModel';
import { startFakeModelServer, type FakeModelServer } from '../fixtures/fakeModelServer';
import { startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import { waitUntil } from '../fixtures/waitUntil';
import { keptScreenshotPath, newPairingCode, pairThroughLink, screenshotPath } from './appHarness';

const PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
};
const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 } };

describe('Claude accounts and session options in Chromium against the real runtime and Claude Code', () => {
  let model: FakeModelServer;
  let runtime: RuntimeProcess;
  let browser: Browser;
  let configDir: string;

  beforeAll(async () => {
    const agents = installedAgents();
    model = await startFakeModelServer(claudeTurnScript(() => ({ message: 'Hello.' })));
    configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-claude-config-'));
    runtime = await startRuntimeProcess({
      env: { ...claudeEnv(model.url, configDir, agents.claudeBin), ANTHROPIC_API_KEY: undefined },
    });
    browser = await connectChromium();
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await runtime?.stop();
    await model?.close();
    if (configDir) fs.rmSync(configDir, { recursive: true, force: true });
  });

  /** A paired device on the Accounts screen, reached through the header's link. */
  async function openAccounts(options: BrowserContextOptions): Promise<Page> {
    const page = await (await browser.newContext(options)).newPage();
    await pairThroughLink(page, runtime.appOrigin, await newPairingCode(runtime));
    await page.getByRole('link', { name: 'Accounts' }).click();
    await page.getByRole('heading', { name: 'Claude', exact: true }).waitFor();
    return page;
  }

  /** The new-session form of the first project with Claude chosen and its options open (ACC-5, ACC-8). */
  async function openClaudeSessionOptions(page: Page): Promise<void> {
    await page.getByRole('link', { name: 'Sessions' }).click();
    const project = page.getByRole('region', { name: /^Project / }).first();
    await project.getByLabel('Agent').selectOption('claude');
    await project.getByRole('button', { name: 'Options' }).click();
    await page.getByLabel('Permission mode').waitFor();
  }

  const card = (page: Page, label: string) => page.getByRole('group', { name: label, exact: true });

  async function fitsTheWidth(page: Page): Promise<void> {
    const { scrollWidth, innerWidth } = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
    }));
    expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
  }

  it(
    'ACC-2 on a phone: status, the desktop sign-in command, an API key that signs the account in, add, activate and remove',
    async () => {
      const page = await openAccounts(PHONE);
      const main = card(page, 'Main Claude folder');
      await main.getByText('Not signed in').waitFor({ timeout: 90_000 });
      await main.getByText('On the desktop, in a terminal').click();
      expect(await main.locator('[data-field="sign-in-command"]').textContent()).toBe(
        `CLAUDE_CONFIG_DIR=${configDir} claude /login`,
      );

      await page.getByRole('button', { name: 'Add a Claude account' }).click();
      const added = card(page, 'Claude account 1');
      await added.waitFor();
      await added.getByText('On the desktop, in a terminal').click();
      const command = await added.locator('[data-field="sign-in-command"]').textContent();
      expect(command).toMatch(
        new RegExp(
          `^CLAUDE_CONFIG_DIR=${path.join(runtime.dataDir, 'claude', 'accounts')}/[0-9a-f-]{36} claude /login$`,
        ),
      );
      await added.getByText('Not signed in').waitFor({ timeout: 90_000 });

      await main.getByLabel('Anthropic API key').fill('sk-typed-on-the-phone');
      await main.getByRole('button', { name: 'Save key' }).click();
      await main.getByText('Signed in (ANTHROPIC_API_KEY)').waitFor({ timeout: 90_000 });
      expect(await main.getByLabel('Anthropic API key').inputValue()).toBe('');
      // Back on the screen, the last check shows at once while the next one (seconds: it starts Claude Code) runs.
      await page.getByRole('link', { name: 'Sessions' }).click();
      await page.getByRole('link', { name: 'Accounts' }).click();
      const status = card(page, 'Main Claude folder').locator('[data-field="status"]');
      await status.waitFor();
      expect(await status.textContent()).toMatch(/^Signed in \(ANTHROPIC_API_KEY\)( · checking…)?$/);
      await waitUntil(
        async () => (await status.textContent()) === 'Signed in (ANTHROPIC_API_KEY)',
        'the new check ends',
        { timeoutMs: 90_000 },
      );

      await fitsTheWidth(page);
      await page.screenshot({
        path: keptScreenshotPath('claude-accounts', 'phone-light'),
        fullPage: true,
        scale: 'css',
      });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.screenshot({
        path: keptScreenshotPath('claude-accounts', 'phone-dark'),
        fullPage: true,
        scale: 'css',
      });
      await page.emulateMedia({ colorScheme: 'light' });

      await openClaudeSessionOptions(page);
      const mode = page.getByLabel('Permission mode');
      await mode.selectOption('plan');
      await page.getByText('Claude reads and plans; it changes nothing on disk.').waitFor();
      const modelSelect = page.getByLabel('Model');
      await waitUntil(
        async () => (await modelSelect.locator('option').count()) > 1,
        'the models Claude Code offers are listed',
        { timeoutMs: 90_000 },
      );
      expect(await mode.inputValue()).toBe('plan');
      await page.getByText('Claude has no saved conversation for this folder yet.').waitFor({ timeout: 90_000 });
      await fitsTheWidth(page);
      await page.screenshot({
        path: screenshotPath('claude-session-options-phone-light'),
        fullPage: true,
        scale: 'css',
      });

      await page.getByRole('link', { name: 'Accounts' }).click();

      await added.getByRole('button', { name: 'Make active' }).click();
      await added.getByText('Active', { exact: true }).waitFor();
      expect(await main.getByText('Active', { exact: true }).count()).toBe(0);
      await added.getByRole('button', { name: 'Remove' }).click();
      await added.waitFor({ state: 'detached' });
      await main.getByText('Active', { exact: true }).waitFor();
      expect(fs.readdirSync(path.join(runtime.dataDir, 'claude', 'accounts'))).toEqual([]);
      await page.context().close();
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ACC-2 on a desktop, light and dark (screenshots)',
    async () => {
      // ACC-8: a conversation Claude saved, open in an app session, is listed and cannot be taken again.
      const client = await runtime.connect();
      const sessionId = await createAgentSession(client, 'claude');
      await sendAndWait(client, sessionId, 'Plan the login page');
      client.close();
      const page = await openAccounts(DESKTOP);
      await card(page, 'Main Claude folder').getByText('Signed in (ANTHROPIC_API_KEY)').waitFor({ timeout: 90_000 });
      await fitsTheWidth(page);
      await page.screenshot({
        path: keptScreenshotPath('claude-accounts', 'desktop-light'),
        fullPage: true,
        scale: 'css',
      });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.screenshot({
        path: keptScreenshotPath('claude-accounts', 'desktop-dark'),
        fullPage: true,
        scale: 'css',
      });
      await page.emulateMedia({ colorScheme: 'light' });
      await openClaudeSessionOptions(page);
      const saved = page
        .getByRole('radiogroup', { name: 'Continue a Claude conversation' })
        .locator('[data-conversation-id]');
      await saved.first().waitFor({ timeout: 90_000 });
      expect(await saved.count()).toBe(1);
      expect(await saved.first().textContent()).toContain('Plan the login page');
      expect(await saved.first().textContent()).toContain('already open in a session');
      expect(await saved.first().isDisabled()).toBe(true);
      await fitsTheWidth(page);
      await page.screenshot({
        path: screenshotPath('claude-session-options-desktop-light'),
        fullPage: true,
        scale: 'css',
      });
      await page.context().close();
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
