import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../fixtures/agentPackages';
import {
  codexTimelineConfigToml,
  commandReply,
  messageReply,
  patchCall,
  queuedReplies,
  searchAndLookupReply,
  STORY_BEFORE,
  STORY_PATCH,
  streamedReply,
} from '../fixtures/fakeCodexTimeline';
import type { ScriptedReply } from '../fixtures/fakeModelServer';
import { waitUntil } from '../fixtures/waitUntil';
import { waitForRows } from '../fixtures/agentSessions';
import {
  DESKTOP_CONTEXT,
  keptScreenshotPath,
  PHONE_CONTEXT,
  scrollRowIntoView,
  sendCommand,
  waitConnected,
} from './appHarness';
import { pairedPage, useModelAppSuite } from './appSuite';
const TURN_MS = 180_000;

/** Kept screenshots of this test (docs/screenshots, prefix `timeline-codex-`). */
const docScreenshot = (name: string) => keptScreenshotPath('timeline-codex', name);

/**
 * The first row matching `selector` (and `text`), scrolled into view. The list is virtualized
 * (TL-4): a row far from the view is not in the page, so the list is walked from its top down.
 */
async function findRow(page: Page, selector: string, text?: string): Promise<Locator> {
  const all = page.locator(`[data-testid="timeline"] ${selector}`);
  const row = text === undefined ? all.first() : all.filter({ hasText: text }).first();
  await page.evaluate(() => document.querySelector('[data-testid="timeline"]')?.scrollTo(0, 0));
  await waitUntil(
    async () => {
      if ((await row.count()) > 0) {
        // The virtualizer may unmount the row while the list re-measures: then the next round finds it again.
        await row.scrollIntoViewIfNeeded({ timeout: 5_000 });
        return true;
      }
      // When the bottom is reached without the row, start again from the top (rows may still arrive).
      await page.evaluate(() => {
        const box = document.querySelector('[data-testid="timeline"]');
        if (!box) return;
        if (box.scrollTop + box.clientHeight >= box.scrollHeight - 2) box.scrollTo(0, 0);
        else box.scrollBy(0, 0.7 * box.clientHeight);
      });
      return false;
    },
    `a ${selector} row${text ? ` with "${text}"` : ''} is shown`,
    { timeoutMs: TURN_MS, intervalMs: 200, retryErrors: true },
  );
  return row;
}

/** The rows of the scripted turn as the user sees them (TL-1); the same live and saved. */
async function expectTurnRows(page: Page): Promise<void> {
  // The turn end comes last: once it shows, no row of the turn is still in progress.
  const end = await findRow(page, '[data-row="turnEnd"]');
  expect(await end.getAttribute('data-status')).toBe('completed');
  expect(await end.innerText()).toContain('Turn completed');

  const text = await findRow(page, '[data-row="agentText"]', 'Changing the story now.');
  expect(await text.locator('strong').textContent()).toBe('story');

  const reasoning = await findRow(page, '[data-row="reasoning"]');
  expect(await reasoning.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(false);
  expect(await reasoning.locator('summary').textContent()).toContain('Looking at the story.');

  const change = await findRow(page, '[data-row="fileChange"]');
  await waitUntil(
    async () => (await change.locator('.diff-count-added').first().textContent()) === '+2',
    'the change counts its added lines',
    TURN_MS,
  );
  expect(await change.locator('.diff-count-removed').first().textContent()).toBe('−1');
  const story = change.locator('[data-file="story.txt"]');
  expect(await story.getByLabel('1 lines added').textContent()).toBe('+1');
  expect(await story.getByLabel('1 lines removed').textContent()).toBe('−1');
  const storyLines = await story.locator('.diff-lines').innerText();
  expect(storyLines).toContain('second');
  expect(storyLines).toContain('SECOND');
  const addedLines = await change.locator('[data-file="added.txt"] .diff-lines').innerText();
  expect(addedLines).toContain('brand new');

  const lookup = await findRow(page, '[data-row="toolCall"]', 'mcp:tiny/lookup');
  expect(await lookup.innerText()).toContain('definition of plot: a test word');
  await findRow(page, '[data-row="toolCall"]', 'Search "story structure"');
  await findRow(page, '[data-row="command"]', 'cat story.txt');
  await findRow(page, '[data-row="agentText"]', 'Finished.');
}

describe('TL-1 a real Codex turn in the app at phone size, live and after a reload', () => {
  const queue: ScriptedReply[] = [];
  const suite = useModelAppSuite(queuedReplies(queue), {
    runtime: ({ modelUrl }) => ({
      env: {
        HBCODE_CODEX_BIN: installedAgents().codexBin,
        HBCODE_CODEX_CONFIG_TOML: codexTimelineConfigToml(modelUrl),
      },
    }),
    timeoutMs: AGENT_INSTALL_TIMEOUT_MS,
  });
  let page: Page;

  beforeAll(async () => {
    fs.writeFileSync(path.join(suite.runtime.projectDir, 'story.txt'), STORY_BEFORE);
    page = await pairedPage(suite, PHONE_CONTEXT);
  }, AGENT_INSTALL_TIMEOUT_MS);

  it(
    'TL-1 a Codex session made in the app shows Markdown text, collapsed reasoning, the diff with its counts, tool results and the turn end; a reload shows the saved rows',
    async () => {
      await page.goto(`${suite.runtime.appOrigin}/#/`);
      await page.getByLabel('Agent').first().selectOption('codex');
      // Full access (ACC-5): in the sandbox the login shell complains that it cannot write its home,
      // and that line, naming this machine's folders, would land in the command's shown output.
      await page.getByRole('button', { name: 'Options' }).first().tap();
      await page.getByRole('group', { name: 'Codex options' }).getByLabel('Sandbox').selectOption('danger-full-access');
      // DEV-2: full access is confirmed on the device in a dialog before the session is made.
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'New session' }).first().tap();
      queue.push(
        streamedReply(['Looking ', 'at the story.'], ['Changing ', 'the **story**', ' now.'], [patchCall(STORY_PATCH)]),
        commandReply('cat story.txt'),
        searchAndLookupReply('story structure', 'plot'),
        messageReply('Finished.'),
      );
      await sendCommand(page, 'Edit the story');
      await expectTurnRows(page);
      // The patch really ran in the project.
      expect(fs.readFileSync(path.join(suite.runtime.projectDir, 'story.txt'), 'utf8')).toBe('first\nSECOND\nthird\n');

      // Saved rows: once the runtime has replaced every live row by its saved one, a reload reads
      // those back (TL-1 rows are the same live and saved).
      const client = await suite.runtime.connect();
      try {
        const [session] = (await client.call('sessions.list')).sessions.filter((s) => s.agent === 'codex');
        await waitForRows(
          client,
          session!.id,
          (rows) => {
            const items = rows.filter((r) => 'source' in r);
            return items.length >= 6 && items.every((r) => r.source === 'saved');
          },
          TURN_MS,
        );
      } finally {
        client.close();
      }
      // A reload keeps the session open: it is in the app's address (UX-1).
      await page.reload();
      await waitConnected(page);
      await expectTurnRows(page);

      await scrollRowIntoView(await findRow(page, '[data-row="fileChange"]'));
      await page.emulateMedia({ colorScheme: 'light' });
      await page.screenshot({ path: docScreenshot('phone-light') });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.screenshot({ path: docScreenshot('phone-dark') });
      await page.emulateMedia({ colorScheme: 'light' });
      await scrollRowIntoView(await findRow(page, '[data-row="turnEnd"]'));
      await page.screenshot({ path: docScreenshot('phone-end-light') });
      await page.setViewportSize(DESKTOP_CONTEXT.viewport!);
      await scrollRowIntoView(await findRow(page, '[data-row="fileChange"]'));
      await page.screenshot({ path: docScreenshot('desktop-light'), scale: 'css' });
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
