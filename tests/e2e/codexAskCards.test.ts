import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../fixtures/agentPackages';
import {
  askUserStep,
  codexAsksConfigToml,
  elicitationReply,
  lookupStep,
  pickColorStep,
  toolOutputs,
} from '../fixtures/codexAskScenario';
import { codexTurnScript, type CodexStep } from '../fixtures/fakeCodexModel';
import { waitUntil } from '../fixtures/waitUntil';
import { DESKTOP_CONTEXT, keptScreenshotPath, newPairingCode, PHONE_CONTEXT, sendCommand } from './appHarness';
import { pairedPage, useModelAppSuite } from './appSuite';
import { newSession } from './stopHarness';

/** Kept screenshots of this feature (docs/screenshots, prefix `asks-`). */
const docScreenshot = (name: string) => keptScreenshotPath('asks', name);

/**
 * ACC-4 in Chromium against the real runtime and the real Codex: the cards of what Codex asks
 * beyond commands and file changes (its questions, its question before an MCP tool runs, an MCP
 * server's form), answered on the phone while the desktop shows the same card.
 */
describe('What Codex asks, as cards in the app', () => {
  const steps: CodexStep[] = [];
  const suite = useModelAppSuite(
    codexTurnScript(() => steps.shift() ?? { message: 'Nothing to ask.' }),
    {
      runtime: ({ modelUrl }) => ({
        env: { HBCODE_CODEX_BIN: installedAgents().codexBin, HBCODE_CODEX_CONFIG_TOML: codexAsksConfigToml(modelUrl) },
      }),
      timeoutMs: AGENT_INSTALL_TIMEOUT_MS,
    },
  );
  let phone: Page;
  let desktop: Page;

  beforeAll(async () => {
    phone = await pairedPage(suite, PHONE_CONTEXT);
    desktop = await pairedPage(suite, DESKTOP_CONTEXT, await newPairingCode(suite.runtime));
    await newSession(phone, suite.runtime.appOrigin, 'codex');
    // The desktop follows the same (only) session.
    await desktop.goto(`${suite.runtime.appOrigin}/#/`);
    await desktop.locator('button.list-button').first().click();
  }, AGENT_INSTALL_TIMEOUT_MS);

  /** Sends a message whose turn asks `step`; resolves with the card once both devices show it. */
  async function cardOnBoth(step: CodexStep, kind: string) {
    steps.push(step);
    await sendCommand(phone, 'Ask me first');
    const onPhone = phone.getByRole('group', { name: 'Approval request' });
    const onDesktop = desktop.getByRole('group', { name: 'Approval request' });
    await onPhone.waitFor({ timeout: 90_000 });
    await onDesktop.waitFor({ timeout: 90_000 });
    expect(await onPhone.getAttribute('data-kind')).toBe(kind);
    expect(await onDesktop.getAttribute('data-kind')).toBe(kind);
    // In view for the screenshots: the timeline does not scroll to a new card by itself.
    await onPhone.scrollIntoViewIfNeeded();
    await onDesktop.scrollIntoViewIfNeeded();
    return { onPhone, onDesktop };
  }

  const outputCount = () => toolOutputs(suite.model).length;
  async function nextToolOutput(before: number): Promise<string> {
    return waitUntil(
      async () => toolOutputs(suite.model).length > before && toolOutputs(suite.model).at(-1),
      'the tool output reaches the model',
      { timeoutMs: 90_000, intervalMs: 100 },
    );
  }

  it(
    "ACC-4 Codex's questions: picked on the phone, the answer reaches the model and the desktop's card goes",
    async () => {
      const before = outputCount();
      const { onPhone, onDesktop } = await cardOnBoth(askUserStep(), 'question');
      expect(await onPhone.textContent()).toContain('Which database should the service use?');
      await phone.screenshot({ path: docScreenshot('question-phone-light') });
      await phone.emulateMedia({ colorScheme: 'dark' });
      await phone.screenshot({ path: docScreenshot('question-phone-dark') });
      await phone.emulateMedia({ colorScheme: 'light' });
      await desktop.screenshot({ path: docScreenshot('question-desktop') });
      await onPhone.getByRole('radio', { name: 'Postgres' }).tap();
      await onPhone.getByRole('button', { name: 'Answer' }).tap();
      await onDesktop.waitFor({ state: 'detached', timeout: 30_000 });
      expect(JSON.parse(await nextToolOutput(before))).toEqual({ answers: { database: { answers: ['Postgres'] } } });
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    "ACC-4 Codex asks before an MCP tool runs: a tool card with the tool's input; Deny keeps the tool from running",
    async () => {
      const before = outputCount();
      const { onPhone, onDesktop } = await cardOnBoth(lookupStep('walnut'), 'tool');
      expect(await onPhone.textContent()).toContain('lookup (MCP server tiny)');
      expect(await onPhone.getByLabel('Details').textContent()).toContain('"word": "walnut"');
      expect(await onPhone.getByRole('button').allTextContents()).toEqual([
        'Allow once',
        'Allow for this session',
        'Deny',
      ]);
      await phone.screenshot({ path: docScreenshot('mcp-tool-phone') });
      await phone.emulateMedia({ colorScheme: 'dark' });
      await desktop.emulateMedia({ colorScheme: 'dark' });
      await phone.screenshot({ path: docScreenshot('mcp-tool-phone-dark') });
      await desktop.screenshot({ path: docScreenshot('mcp-tool-desktop-dark') });
      await phone.emulateMedia({ colorScheme: 'light' });
      await desktop.emulateMedia({ colorScheme: 'light' });
      await onPhone.getByRole('button', { name: 'Deny' }).tap();
      await onDesktop.waitFor({ state: 'detached', timeout: 30_000 });
      const output = await nextToolOutput(before);
      expect(output).toContain('user rejected MCP tool call');
      expect(output).not.toContain('definition of walnut');
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    "ACC-4 an MCP server's form: filled on the phone, the MCP server gets the answers typed as its schema says",
    async () => {
      const before = outputCount();
      const { onPhone, onDesktop } = await cardOnBoth(pickColorStep('the roof'), 'question');
      expect(await onPhone.textContent()).toContain('Pick a color for the roof');
      const answer = onPhone.getByRole('button', { name: 'Answer' });
      expect(await answer.isEnabled()).toBe(false);
      await onPhone.getByRole('radio', { name: 'green' }).tap();
      // The count is optional in the server's form: the required color alone is enough to answer.
      expect(await onPhone.textContent()).toContain('How many? (optional)');
      expect(await answer.isEnabled()).toBe(true);
      await onPhone.getByRole('textbox', { name: 'How many?' }).fill('3');
      await phone.screenshot({ path: docScreenshot('mcp-form-phone') });
      await answer.tap();
      await onDesktop.waitFor({ state: 'detached', timeout: 30_000 });
      expect(elicitationReply(await nextToolOutput(before))).toEqual({
        action: 'accept',
        content: { color: 'green', count: 3 },
      });
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
