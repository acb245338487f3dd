import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { MessageRow } from '../../lib/protocol/rows';
import { REPO_ROOT } from '../../server/runtime/paths';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../fixtures/agentPackages';
import { createAgentSession, waitForRows } from '../fixtures/agentSessions';
import { claudeEnv } from '../fixtures/fakeClaudeModel';
import { codexConfigToml } from '../fixtures/fakeCodexModel';
import { waitUntil } from '../fixtures/waitUntil';
import { askerScript, helperScript, messagingModels, type MessagingSessions } from '../fixtures/sessionMessageModels';
import { newPairingCode } from './appHarness';
import { pairedPage, useModelAppSuite } from './appSuite';

// MSG-1 in real Chromium at phone size (and the recipient at desktop size): a Codex session asks a Claude session; each timeline shows
// the message with a link to the other session, and the link opens it.

const PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
};
const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 } };

async function screenshots(page: Page, name: string): Promise<void> {
  const dir = path.join(REPO_ROOT, 'docs', 'screenshots');
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await page.screenshot({ path: path.join(dir, `session-messages-${name}-${colorScheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

describe('MSG-1 a message between sessions on the timeline, in Chromium at phone size', () => {
  const ids: MessagingSessions = { asker: '', helper: '' };
  const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-session-messages-app-'));
  const suite = useModelAppSuite(messagingModels(askerScript(ids), helperScript(ids)), {
    runtime: ({ modelUrl }) => {
      const { codexBin, claudeBin } = installedAgents();
      return {
        env: {
          ...claudeEnv(modelUrl, configDir, claudeBin),
          HBCODE_CODEX_BIN: codexBin,
          HBCODE_CODEX_CONFIG_TOML: codexConfigToml(modelUrl),
        },
      };
    },
    timeoutMs: AGENT_INSTALL_TIMEOUT_MS,
  });
  afterAll(() => fs.rmSync(configDir, { recursive: true, force: true }));

  it(
    'MSG-1 MSG-4 the recipient shows the message from the sender with a link to it, the sender shows its call with a link back, light and dark; a held message is delivered from its card',
    async () => {
      // Both pages pair while the agents talk (pairing a new browser takes a while).
      const phonePage = pairedPage(suite, PHONE);
      const desktopPage = newPairingCode(suite.runtime).then((code) => pairedPage(suite, DESKTOP, code));
      for (const pairing of [phonePage, desktopPage]) pairing.catch(() => undefined);
      const client: RpcClient = await suite.runtime.connect();
      ids.asker = await createAgentSession(client, 'codex');
      ids.helper = await createAgentSession(client, 'claude');
      await client.call('sessions.rename', { sessionId: ids.asker, title: 'Planner (Codex)' });
      await client.call('sessions.rename', { sessionId: ids.helper, title: 'Reviewer (Claude)' });
      await client.call('chat.send', {
        sessionId: ids.asker,
        operationId: crypto.randomUUID(),
        text: 'ASK-HELPER: what is six times seven?',
      });
      const fromSession = (rows: { kind: string }[]) =>
        rows.filter((r): r is MessageRow => r.kind === 'message' && (r as MessageRow).fromSession !== undefined);
      await waitForRows(
        client,
        ids.asker,
        (rows) => rows.some((r) => r.kind === 'agentText' && r.text === 'Heard ANSWER 42' && r.source === 'saved'),
        180_000,
      );
      await waitForRows(
        client,
        ids.helper,
        (rows) =>
          fromSession(rows).some((r) => r.state === 'done') &&
          rows.some((r) => r.kind === 'agentText' && r.text === 'Sent it.' && r.source === 'saved'),
        180_000,
      );
      client.close();

      const page = await phonePage;
      await page.goto(`${suite.runtime.appOrigin}/#/?session=${ids.helper}`);
      const from = page.locator(`[data-row="message"] [data-from-session="${ids.asker}"]`);
      await from.waitFor();
      expect(await from.innerText()).toContain('From session Planner (Codex)');
      await from.scrollIntoViewIfNeeded();
      await screenshots(page, 'recipient-phone');

      // The link opens the sender, whose timeline shows its call with a link to the recipient and the answer that came back.
      await from.getByRole('link', { name: 'Planner (Codex)' }).click();
      const to = page.locator(`[data-row="toolCall"] [data-to-session="${ids.helper}"]`);
      await to.waitFor();
      const answer = page.locator(`[data-row="message"] [data-from-session="${ids.helper}"]`);
      expect(await answer.innerText()).toContain('From session Reviewer (Claude)');
      await answer.scrollIntoViewIfNeeded();
      await screenshots(page, 'sender-phone');

      // MSG-4 from the phone: the helper's setting holds the next message for the person, who delivers it.
      await page.goto(`${suite.runtime.appOrigin}/#/?session=${ids.helper}`);
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      await page.locator('[data-setting="messages-need-approval"] input').check();
      const checker = await suite.runtime.connect();
      await waitUntil(
        async () =>
          (await checker.call('sessions.settings', { sessionId: ids.helper })).settings.messages?.needApproval === true,
        'the setting is saved',
      );
      await checker.call('chat.send', {
        sessionId: ids.asker,
        operationId: crypto.randomUUID(),
        text: 'ASK-HELPER: and once more?',
      });
      const card = page.locator('[data-row="approval"][data-kind="message"]');
      await card.waitFor({ timeout: 120_000 });
      expect(await card.innerText()).toContain('QUESTION what is six times seven?');
      expect(await card.getByRole('button', { name: 'Allow for this session' }).count()).toBe(0);
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      await card.scrollIntoViewIfNeeded();
      await screenshots(page, 'approval-phone');
      await card.getByRole('button', { name: 'Deliver' }).click();
      await waitForRows(
        checker,
        ids.helper,
        (rows) =>
          fromSession(rows).length === 2 &&
          fromSession(rows).every((r) => r.state === 'done' && r.fromSession!.delivery === 'sent'),
        180_000,
      );
      checker.close();
      await page.context().close();

      // At desktop size, the recipient's row and its link.
      const desktop = await desktopPage;
      await desktop.goto(`${suite.runtime.appOrigin}/#/?session=${ids.helper}`);
      await desktop.locator(`[data-row="message"] [data-from-session="${ids.asker}"]`).first().waitFor();
      await screenshots(desktop, 'recipient-desktop');
      await desktop.context().close();
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
