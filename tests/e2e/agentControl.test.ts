import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../fixtures/agentPackages';
import { startFakeChatgptAuth, type FakeChatgptAuth } from '../fixtures/fakeChatgptAuth';
import { codexConfigToml, codexTurnScript, type CodexStep } from '../fixtures/fakeCodexModel';
import { waitUntil } from '../fixtures/waitUntil';
import {
  commandRow,
  DESKTOP_CONTEXT,
  keptScreenshotPath,
  newPairingCode,
  PHONE_CONTEXT,
  sendCommand,
} from './appHarness';
import { pairedPage, useModelAppSuite } from './appSuite';

/** Kept screenshots of this feature (docs/screenshots, prefix `acc-`). */
const docScreenshot = (name: string) => keptScreenshotPath('acc', name);

/** ACC-1, ACC-4, ACC-6, ACC-7 in Chromium against the real runtime and the real Codex. */
describe('Agent accounts and control in the app', () => {
  let auth: FakeChatgptAuth;
  let phone: Page;
  let desktop: Page;
  const steps: CodexStep[] = [];

  // The fake ChatGPT sign-in starts before the runtime: Codex's config names its address.
  const suite = useModelAppSuite(
    codexTurnScript(() => steps.shift() ?? { message: 'Nothing to run.' }),
    {
      runtime: async ({ modelUrl }) => {
        auth = await startFakeChatgptAuth();
        const toml = codexConfigToml(modelUrl, `chatgpt_base_url = "${auth.url}/backend-api/"`, {
          requiresOpenaiAuth: true,
        });
        return {
          env: {
            HBCODE_CODEX_BIN: installedAgents().codexBin,
            HBCODE_CODEX_CONFIG_TOML: toml,
            CODEX_APP_SERVER_LOGIN_ISSUER: auth.url,
            CODEX_CA_CERTIFICATE: auth.caCertificate,
          },
        };
      },
      timeoutMs: AGENT_INSTALL_TIMEOUT_MS,
    },
  );
  afterAll(async () => {
    await auth?.close();
  });

  beforeAll(async () => {
    phone = await pairedPage(suite, PHONE_CONTEXT);
    desktop = await pairedPage(suite, DESKTOP_CONTEXT, await newPairingCode(suite.runtime));
  }, AGENT_INSTALL_TIMEOUT_MS);

  it(
    'ACC-1 on a phone: a device-code sign-in shows the URL and code, and the profile turns signed in with its plan limits (ACC-7) on every device',
    async () => {
      await phone.goto(`${suite.runtime.appOrigin}/#/accounts`);
      await desktop.goto(`${suite.runtime.appOrigin}/#/accounts`);
      const card = phone.getByRole('region', { name: 'Codex profile Codex' });
      await card.getByTestId('profile-status').filter({ hasText: 'Signed out' }).waitFor({ timeout: 60_000 });
      await card.getByRole('button', { name: 'Sign in with a code' }).tap();
      const code = card.getByTestId('user-code');
      await code.waitFor({ timeout: 60_000 });
      expect(await code.textContent()).toBe(auth.userCode);
      expect(await card.getByRole('link', { name: `${auth.url}/codex/device` }).getAttribute('href')).toBe(
        `${auth.url}/codex/device`,
      );
      await phone.screenshot({ path: docScreenshot('device-code-phone') });
      auth.approve();
      await card.getByTestId('profile-status').filter({ hasText: 'Signed in' }).waitFor({ timeout: 60_000 });
      expect(await card.textContent()).toContain(auth.email);
      await card
        .locator('[data-window="primary"]')
        .filter({ hasText: `${auth.usage.primaryPercent}% used` })
        .waitFor({ timeout: 60_000 });
      // The other device sees the same profile signed in without a reload.
      await desktop
        .getByRole('region', { name: 'Codex profile Codex' })
        .getByTestId('profile-status')
        .filter({ hasText: 'Signed in' })
        .waitFor({ timeout: 60_000 });
      await phone.screenshot({ path: docScreenshot('accounts-phone-light') });
      await phone.emulateMedia({ colorScheme: 'dark' });
      await phone.screenshot({ path: docScreenshot('accounts-phone-dark') });
      await phone.emulateMedia({ colorScheme: 'light' });
      await desktop.screenshot({ path: docScreenshot('accounts-desktop') });
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    "ACC-4 an approval reaches both devices and survives a reload; one answers and the other's card goes",
    async () => {
      await phone.goto(`${suite.runtime.appOrigin}/#/`);
      await phone.getByLabel('Agent').first().selectOption('codex');
      await phone.getByRole('button', { name: 'Options' }).first().tap();
      await phone.getByRole('group', { name: 'Codex options' }).waitFor();
      await phone.screenshot({ path: docScreenshot('session-options-phone') });
      await phone.getByRole('button', { name: 'New session' }).first().tap();
      steps.push({ command: 'echo approved-on-the-phone', escalate: true });
      await sendCommand(phone, 'Run it outside the sandbox');
      await desktop.goto(`${suite.runtime.appOrigin}/#/`);
      await desktop.locator('button.list-button').first().click();
      const onDesktop = desktop.getByRole('group', { name: 'Approval request' });
      const onPhone = phone.getByRole('group', { name: 'Approval request' });
      await onDesktop.waitFor({ timeout: 90_000 });
      await onPhone.waitFor({ timeout: 90_000 });
      expect(await onPhone.getAttribute('data-kind')).toBe('command');
      // A reload of the app still shows the pending approval: it is stored by the suite.runtime.
      // The reload keeps the session open: it is in the app's address (UX-1).
      await phone.reload();
      await onPhone.waitFor({ timeout: 30_000 });
      await phone.screenshot({ path: docScreenshot('approval-phone') });
      await onPhone.getByRole('button', { name: 'Allow', exact: true }).tap();
      await onDesktop.waitFor({ state: 'detached', timeout: 30_000 });
      await commandRow(phone, "/bin/bash -lc 'echo approved-on-the-phone'")
        .locator('[data-status="exited"]')
        .waitFor({ timeout: 90_000 });
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'ACC-6 at phone size: while a turn runs the composer offers queue or steer; Stop in the output viewer ends the command as cancelled and the queued message runs next',
    async () => {
      steps.push({ command: 'echo long-start; sleep 120' });
      await sendCommand(phone, 'Start a long command');
      await phone.getByRole('radiogroup', { name: 'While the turn runs' }).waitFor({ timeout: 90_000 });
      expect(await phone.getByRole('radio', { name: 'Queue after this turn' }).isChecked()).toBe(true);
      steps.push({ command: 'echo after-the-stop' });
      await sendCommand(phone, 'Then run this');
      const long = commandRow(phone, "/bin/bash -lc 'echo long-start; sleep 120'");
      await long.waitFor({ timeout: 90_000 });
      await phone.screenshot({ path: docScreenshot('steer-or-queue-phone') });
      await long.tap();
      const stop = phone.getByRole('button', { name: 'Stop' });
      await stop.waitFor();
      await stop.tap();
      await phone.getByRole('button', { name: 'Back to timeline' }).tap();
      await long.locator('[data-status="cancelled"]').waitFor({ timeout: 30_000 });
      await commandRow(phone, "/bin/bash -lc 'echo after-the-stop'")
        .locator('[data-status="exited"]')
        .waitFor({ timeout: 90_000 });
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    "ACC-5 a session's sandbox changes between turns from its Settings panel",
    async () => {
      await phone.getByRole('button', { name: 'Settings' }).tap();
      const panel = phone.getByRole('group', { name: 'Codex options' });
      await panel.getByLabel('Sandbox').selectOption('read-only');
      await phone.screenshot({ path: docScreenshot('session-settings-phone') });
      const client = await suite.runtime.connect();
      try {
        const [session] = (await client.call('sessions.list')).sessions.filter((s) => s.agent === 'codex');
        await waitUntil(
          async () =>
            (await client.call('sessions.settings', { sessionId: session!.id })).settings.codex?.sandbox ===
            'read-only',
          'the new sandbox is stored',
        );
      } finally {
        client.close();
      }
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
