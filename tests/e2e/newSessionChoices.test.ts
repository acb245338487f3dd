import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Dialog, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../lib/protocol/rows';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../fixtures/agentPackages';
import { claudeEnv, claudeTurnScript } from '../fixtures/fakeClaudeModel';
import { claudeInTerminal } from '../fixtures/terminalConversations';
import { waitUntil } from '../fixtures/waitUntil';
import { DESKTOP_CONTEXT, PHONE_CONTEXT, sendCommand } from './appHarness';
import { pairedPage, useModelAppSuite } from './appSuite';
import { docsScreenshotPath } from './screensHarness';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
const PROMPT = 'Plan the login page';

/** Kept screenshots (docs/screenshots), light and dark. */
async function docScreenshots(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: docsScreenshotPath(`${name}-light`) });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: docsScreenshotPath(`${name}-dark`) });
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Answers the next confirmations in order (true: OK), recording what each asked. */
function answerConfirmations(page: Page, answers: boolean[]): string[] {
  const asked: string[] = [];
  const answer = (dialog: Dialog) => {
    asked.push(dialog.message());
    const ok = answers.shift();
    if (answers.length === 0) page.off('dialog', answer);
    void (ok ? dialog.accept() : dialog.dismiss());
  };
  page.on('dialog', answer);
  return asked;
}

describe('New session in Chromium: a worktree of its own and a conversation started in a terminal (SES-10, SES-11, ACC-11)', () => {
  const claudeFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-claude-e2e-'));
  const replies: string[] = [];
  let projectDir = '';
  const suite = useModelAppSuite(
    claudeTurnScript(() => ({ message: replies.shift() ?? 'Nothing more.' })),
    {
      runtime: ({ modelUrl, projectDir: dir }) => {
        projectDir = dir;
        git(dir, 'init', '--quiet', '--initial-branch=main');
        git(dir, 'config', 'user.email', 'tests@example.invalid');
        git(dir, 'config', 'user.name', 'Tests');
        fs.writeFileSync(path.join(dir, 'README.md'), 'The app\n');
        git(dir, 'add', 'README.md');
        git(dir, 'commit', '--quiet', '-m', 'first');
        return { env: claudeEnv(modelUrl, claudeFolder, installedAgents().claudeBin) };
      },
      timeoutMs: AGENT_INSTALL_TIMEOUT_MS,
    },
  );
  let page: Page;
  let session: Session;

  beforeAll(async () => {
    replies.push('Start with the form.');
    await claudeInTerminal({
      claudeBin: installedAgents().claudeBin,
      modelUrl: suite.model.url,
      configDir: claudeFolder,
      cwd: projectDir,
      prompt: PROMPT,
    });
    page = await pairedPage(suite, PHONE_CONTEXT);
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(() => {
    fs.rmSync(`${projectDir}.worktrees`, { recursive: true, force: true });
    fs.rmSync(claudeFolder, { recursive: true, force: true });
  });

  it(
    'ACC-11 SES-10 the options list the conversation `claude -p` saved with its first prompt; picked with a new worktree, the session opens with its history on its own branch, which the list shows',
    async () => {
      await page.getByLabel('Agent').first().selectOption('claude');
      await page.getByRole('button', { name: 'Options' }).first().click();
      const picker = page.getByRole('radiogroup', { name: 'Continue a Claude conversation' });
      const saved = picker.getByRole('radio').filter({ hasText: PROMPT });
      await saved.waitFor({ timeout: 60_000 });
      expect(await picker.getByRole('radio', { name: 'Start a new conversation' }).getAttribute('aria-checked')).toBe(
        'true',
      );
      // Its time and size are shown (the first prompt is the title Claude gives it here).
      expect(await saved.locator('.conversation-meta').textContent()).toMatch(/\d+(\.\d)? (B|KiB)/);

      await page.getByRole('checkbox', { name: 'Work on a new branch in its own worktree' }).check();
      await page.getByLabel('Branch name (leave empty for a new one)').fill('login-page');
      await saved.click();
      expect(await saved.getAttribute('aria-checked')).toBe('true');
      await page.getByRole('group', { name: 'Worktree' }).scrollIntoViewIfNeeded();
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await docScreenshots(page, 'new-session-choices-phone');
      await page.setViewportSize(DESKTOP_CONTEXT.viewport!);
      await docScreenshots(page, 'new-session-choices-desktop');
      await page.setViewportSize(PHONE_CONTEXT.viewport!);

      // The choices end with their own start button, so a phone need not scroll back up.
      await page.getByRole('button', { name: 'Start this session' }).click();
      await page.locator('[data-row="userText"]').filter({ hasText: PROMPT }).waitFor({ timeout: 60_000 });
      await page.locator('[data-row="agentText"]').filter({ hasText: 'Start with the form.' }).waitFor();
      // The next turn continues that conversation from the worktree: the model is sent the terminal turn too.
      replies.push('The form first, then the checks.');
      await sendCommand(page, 'Which part comes first?');
      await page
        .locator('[data-row="agentText"]')
        .filter({ hasText: 'The form first, then the checks.' })
        .waitFor({ timeout: 90_000 });
      expect(JSON.stringify(suite.model.requests.at(-1)!.body)).toContain(PROMPT);
      await page
        .locator('[data-row="message"][data-state="done"]')
        .filter({ hasText: 'Which part comes first?' })
        .waitFor({ timeout: 90_000 });

      const admin = await suite.runtime.connect();
      session = (await admin.call('sessions.list')).sessions[0]!;
      admin.close();
      expect(session.worktree?.branch).toBe('login-page');
      expect(fs.existsSync(path.join(session.worktree!.path, 'README.md'))).toBe(true);

      await page.evaluate(() => {
        location.hash = '#/';
      });
      const branch = page.locator(`li[data-session-id="${session.id}"] [data-session-branch]`);
      await branch.waitFor();
      expect(await branch.textContent()).toBe('login-page');
      // The session is named for the conversation it continues.
      expect(await page.locator(`li[data-session-id="${session.id}"] [data-session-title]`).textContent()).toBe(PROMPT);
      await docScreenshots(page, 'sessions-list-branch-phone');
      await page.setViewportSize(DESKTOP_CONTEXT.viewport!);
      await branch.waitFor();
      await docScreenshots(page, 'sessions-list-branch-desktop');
      await page.setViewportSize(PHONE_CONTEXT.viewport!);
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'SES-11 deleting asks whether to remove the worktree, names the unmerged commit and keeps everything when that is cancelled, and removes them once confirmed',
    async () => {
      git(session.worktree!.path, 'commit', '--quiet', '--allow-empty', '-m', 'work on the login page');
      const entry = page.locator(`li[data-session-id="${session.id}"]`);
      const cancelled = answerConfirmations(page, [true, true, false]);
      await entry.getByRole('button', { name: /^Delete / }).click();
      await waitUntil(() => cancelled.length === 3, 'the three confirmations are asked');
      expect(cancelled[1]).toContain('Also remove its worktree and the branch "login-page"?');
      expect(cancelled[2]).toContain("1 commit not in the project's HEAD");
      await entry.waitFor();
      expect(fs.existsSync(session.worktree!.path)).toBe(true);

      const confirmed = answerConfirmations(page, [true, true, true]);
      await entry.getByRole('button', { name: /^Delete / }).click();
      await entry.waitFor({ state: 'detached' });
      expect(confirmed).toHaveLength(3);
      expect(fs.existsSync(session.worktree!.path)).toBe(false);
      expect(git(projectDir, 'branch', '--list', 'login-page')).toBe('');
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
