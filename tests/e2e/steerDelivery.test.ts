import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../lib/client/rpcClient';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../fixtures/agentPackages';
import { codexSettings, createAgentSession } from '../fixtures/agentSessions';
import { connectChromium } from '../fixtures/sharedChromium';
import { codexConfigToml, codexTurnScript, responsesInput, type CodexStep } from '../fixtures/fakeCodexModel';
import { startFakeModelServer, type FakeModelServer } from '../fixtures/fakeModelServer';
import { makeRuntimeDirs, type RuntimeDirs } from '../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import { waitForCommand } from '../fixtures/sessionHelpers';
import { waitUntil } from '../fixtures/waitUntil';
import {
  DESKTOP_CONTEXT,
  keptScreenshotPath,
  newPairingCode,
  pairThroughLink,
  PHONE_CONTEXT,
  scrollRowIntoView,
  sendCommand,
  startupPairingCode,
} from './appHarness';

const docScreenshot = (name: string) => keptScreenshotPath('acc', name);
const STEER_TEXT = 'Also say the word quince';

/**
 * ACC-6 in Chromium at phone size: a steer the runtime's crash cut off says "not delivered" and
 * offers Send again; Send again gives the text to the model as a new message.
 */
describe('A steer cut off by a crash, in the app', () => {
  const steps: CodexStep[] = [];
  let dirs: RuntimeDirs;
  let model: FakeModelServer;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let browser: Browser;
  let phone: Page;

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    model = await startFakeModelServer(codexTurnScript(() => steps.shift() ?? { message: 'Nothing to run.' }));
    runtime = await startRuntimeProcess({
      dataDir: dirs.dataDir,
      projectDirs: dirs.projectDirs,
      env: { HBCODE_CODEX_BIN: installedAgents().codexBin, HBCODE_CODEX_CONFIG_TOML: codexConfigToml(model.url) },
    });
    client = await runtime.connect();
    browser = await connectChromium();
    phone = await (await browser.newContext(PHONE_CONTEXT)).newPage();
    await pairThroughLink(phone, runtime.appOrigin, startupPairingCode(runtime));
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    client?.close();
    await browser?.close();
    await runtime?.stopIfRunning();
    await model?.close();
    dirs?.remove();
  });

  it(
    'ACC-6 the runtime killed right after a steer: the row says not delivered, offers Send again, and Send again reaches the model',
    async () => {
      const sessionId = await createAgentSession(
        client,
        'codex',
        undefined,
        codexSettings({ sandbox: 'danger-full-access', approvalPolicy: 'never' }),
      );
      await phone.goto(`${runtime.appOrigin}/#/?session=${sessionId}`);
      steps.push({ command: 'sleep 30; echo slept' });
      await sendCommand(phone, 'Start a long command');
      const runId = await waitUntil(
        async () =>
          (await client.call('sessions.timeline', { sessionId })).rows.find((r) => r.kind === 'message')?.runId,
        'the first message reaches the runtime',
        { timeoutMs: 60_000 },
      );
      await waitForCommand(client, sessionId, runId, (r) => r.status === 'running', 90_000);
      await phone.getByRole('radio', { name: 'Steer this turn' }).tap();
      await sendCommand(phone, STEER_TEXT);
      const steer = phone.locator('[data-row="message"]').filter({ hasText: STEER_TEXT });
      await steer
        .locator('[data-message-state]')
        .filter({ hasText: 'accepted by the agent, not yet delivered' })
        .waitFor({ timeout: 60_000 });
      expect(model.requests.some((r) => JSON.stringify(responsesInput(r)).includes('quince'))).toBe(false);

      // The runtime dies while the command still runs: the steer never reached the model.
      client.close();
      await runtime.kill();
      runtime = await runtime.restart();
      client = await runtime.connect();
      await steer.locator('[data-message-state]').filter({ hasText: 'not delivered' }).waitFor({ timeout: 60_000 });
      const sendAgain = steer.getByRole('button', { name: 'Send again' });
      await sendAgain.waitFor();
      expect(await steer.getByRole('alert').textContent()).toContain('Not delivered: the runtime stopped');
      await scrollRowIntoView(steer);
      await phone.screenshot({ path: docScreenshot('steer-not-delivered-phone-light') });
      await phone.emulateMedia({ colorScheme: 'dark' });
      await phone.screenshot({ path: docScreenshot('steer-not-delivered-phone-dark') });
      await phone.emulateMedia({ colorScheme: 'light' });
      const desktop = await (await browser.newContext(DESKTOP_CONTEXT)).newPage();
      await pairThroughLink(desktop, runtime.appOrigin, await newPairingCode(runtime));
      await desktop.goto(`${runtime.appOrigin}/#/?session=${sessionId}`);
      await desktop
        .locator('[data-row="message"]')
        .filter({ hasText: STEER_TEXT })
        .getByRole('button', { name: 'Send again' })
        .waitFor({ timeout: 60_000 });
      await desktop.screenshot({ path: docScreenshot('steer-not-delivered-desktop') });
      await desktop.context().close();

      // Send again: the same text as a new message, a turn of its own now that none runs.
      await sendAgain.tap();
      const resent = phone.locator('[data-row="message"]').filter({ hasText: STEER_TEXT }).nth(1);
      await resent.locator('[data-message-state="done"]').waitFor({ timeout: 90_000 });
      expect(model.requests.some((r) => JSON.stringify(responsesInput(r)).includes('quince'))).toBe(true);
      await phone.screenshot({ path: docScreenshot('steer-sent-again-phone') });
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
