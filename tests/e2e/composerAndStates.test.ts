import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeHash } from '../../lib/client/appRoute';
import { waitUntil } from '../fixtures/waitUntil';
import {
  commandRow,
  DESKTOP_CONTEXT,
  keepLightAndDark,
  keptScreenshotPath,
  newPairingCode,
  PHONE_CONTEXT,
  sendCommand,
  waitCommandFinished,
} from './appHarness';
import { pairedPage, useAppSuite } from './appSuite';

// UX-3 in real Chromium against the real runtime: blank screens say what to do, the composer
// takes several lines (Shift+Enter on a desktop, return on a touch screen), recalls earlier
// messages with ↑ and keeps its draft across a reload; sessions are renamed and sorted by their
// last activity; offline, a running row never pretends to be live.

/** The screen in light and dark, kept in docs/screenshots as `nav-<name>-light.png` and `-dark.png`. */
const lightAndDark = (page: Page, name: string) => keepLightAndDark(page, 'nav', name);

const messageBox = (page: Page) => page.getByRole('textbox', { name: 'Message' });
const hashOf = (page: Page) => page.evaluate(() => location.hash);
const emptyState = (page: Page, name: string) => page.locator(`[data-empty="${name}"]`);

describe('UX-3 the app says what to do, keeps drafts and never pretends to be live', () => {
  const suite = useAppSuite({
    runtime: ({ projectDir }) => {
      fs.mkdirSync(path.join(projectDir, 'empty-folder'));
      return {};
    },
  });
  let phone: Page;
  let desktop: Page;
  let sessionHash: string;

  beforeAll(async () => {
    for (const options of [PHONE_CONTEXT, DESKTOP_CONTEXT]) {
      const page = await pairedPage(suite, { ...options, colorScheme: 'light' }, await newPairingCode(suite.runtime));
      if (options === PHONE_CONTEXT) phone = page;
      else desktop = page;
    }
  }, 120_000);

  it('UX-3 no sessions, a new session, a 0-byte output and an empty folder each say what to do next', async () => {
    for (const page of [phone, desktop]) {
      await emptyState(page, 'sessions').waitFor();
      expect(await emptyState(page, 'sessions').textContent()).toContain('New session');
    }
    await lightAndDark(phone, 'empty-sessions-phone');
    await lightAndDark(desktop, 'empty-sessions-desktop');

    await phone.getByRole('button', { name: 'New session' }).click();
    await emptyState(phone, 'timeline').waitFor();
    expect(await emptyState(phone, 'timeline').textContent()).toContain('Type a command below');
    sessionHash = await hashOf(phone);
    await desktop.goto(`${suite.runtime.appOrigin}/${sessionHash}`);
    await emptyState(desktop, 'timeline').waitFor();
    await lightAndDark(phone, 'empty-timeline-phone');
    await lightAndDark(desktop, 'empty-timeline-desktop');

    await sendCommand(phone, 'true');
    expect(await waitCommandFinished(phone, 'true')).toBe('exit 0');
    expect(await emptyState(phone, 'timeline').count()).toBe(0);
    await commandRow(phone, 'true').click();
    await emptyState(phone, 'output').waitFor();
    expect(await emptyState(phone, 'output').textContent()).toContain('printed nothing');
    await desktop.goto(`${suite.runtime.appOrigin}/${await hashOf(phone)}`);
    await emptyState(desktop, 'output').waitFor();
    await lightAndDark(phone, 'empty-output-phone');
    await lightAndDark(desktop, 'empty-output-desktop');

    const folder = `${suite.runtime.appOrigin}/${routeHash({ kind: 'files', projectDirectory: suite.runtime.projectDir, path: 'empty-folder' })}`;
    for (const page of [phone, desktop]) {
      await page.goto(folder);
      await emptyState(page, 'folder').waitFor();
      expect(await emptyState(page, 'folder').textContent()).toContain('This folder is empty');
    }
    await lightAndDark(phone, 'empty-folder-phone');
    await lightAndDark(desktop, 'empty-folder-desktop');
  }, 180_000);

  it('UX-3 on a desktop Shift+Enter adds a line, the draft survives a reload, Enter sends it, ↑ recalls it', async () => {
    await desktop.goto(`${suite.runtime.appOrigin}/${sessionHash}`);
    const box = messageBox(desktop);
    await box.click();
    await box.pressSequentially('echo first');
    await box.press('Shift+Enter');
    await box.pressSequentially('echo second');
    expect(await box.inputValue()).toBe('echo first\necho second');
    // The box grows with its lines.
    const height = await box.evaluate((el) => el.getBoundingClientRect().height);
    expect(height).toBeGreaterThan(50);
    await lightAndDark(desktop, 'composer-draft-desktop');

    await desktop.reload();
    await waitUntil(
      async () => (await messageBox(desktop).inputValue()) === 'echo first\necho second',
      'the draft is back after the reload',
    );

    await messageBox(desktop).press('Enter');
    await waitUntil(
      async () => (await messageBox(desktop).inputValue()) === '',
      'the box is emptied when the message goes',
    );
    const sent = commandRow(desktop, 'echo first');
    expect(await waitCommandFinished(desktop, 'echo first\necho second')).toBe('exit 0');
    expect(await sent.count()).toBe(1);
    // Sent: no draft comes back with a reload.
    await desktop.reload();
    await commandRow(desktop, 'echo first').waitFor();
    expect(await messageBox(desktop).inputValue()).toBe('');

    await messageBox(desktop).press('ArrowUp');
    expect(await messageBox(desktop).inputValue()).toBe('echo first\necho second');
    await messageBox(desktop).press('ArrowDown');
    expect(await messageBox(desktop).inputValue()).toBe('');
    // ↑ with the caret past the start of the user's own text moves the caret, never replaces the text.
    await messageBox(desktop).pressSequentially('ls');
    await messageBox(desktop).press('ArrowUp');
    expect(await messageBox(desktop).inputValue()).toBe('ls');
  }, 120_000);

  it('UX-3 on a touch screen return adds a line and Send sends', async () => {
    await phone.goto(`${suite.runtime.appOrigin}/${sessionHash}`);
    expect(await phone.evaluate(() => matchMedia('(pointer: coarse)').matches)).toBe(true);
    const box = messageBox(phone);
    await box.fill('');
    await box.tap();
    await box.pressSequentially('echo phone one');
    await box.press('Enter');
    await box.pressSequentially('echo phone two');
    expect(await box.inputValue()).toBe('echo phone one\necho phone two');
    expect(await commandRow(phone, 'echo phone one').count()).toBe(0);
    await lightAndDark(phone, 'composer-draft-phone');
    await phone.getByRole('button', { name: 'Send' }).tap();
    expect(await waitCommandFinished(phone, 'echo phone one\necho phone two')).toBe('exit 0');
    expect(await box.inputValue()).toBe('');
  }, 120_000);

  it('UX-3 a renamed session keeps its name on every device, and the list puts the latest activity first with its last line', async () => {
    await phone.goto(`${suite.runtime.appOrigin}/${sessionHash}`);
    await phone.getByRole('button', { name: 'Rename' }).tap();
    await phone.getByLabel('Session title').fill('Phone checks');
    await phone.getByRole('button', { name: 'Save' }).tap();
    await phone.getByRole('heading', { name: 'Phone checks' }).waitFor();
    await phone.reload();
    await phone.getByRole('heading', { name: 'Phone checks' }).waitFor();

    // A second session, newer but idle, then activity in the first: the first goes on top.
    await desktop.goto(`${suite.runtime.appOrigin}/#/`);
    await desktop.locator('li[data-session-id]').filter({ hasText: 'Phone checks' }).waitFor();
    await desktop.getByRole('button', { name: 'New session' }).click();
    await emptyState(desktop, 'timeline').waitFor();
    await desktop.goBack();
    await waitUntil(
      async () => (await desktop.locator('li[data-session-id]').count()) === 2,
      'the list shows both sessions',
    );
    const titles = () => desktop.locator('li[data-session-id] [data-session-title]').allTextContents();
    expect((await titles())[0]).toMatch(/^New shell session/);

    await sendCommand(phone, 'echo latest activity');
    expect(await waitCommandFinished(phone, 'echo latest activity')).toBe('exit 0');
    await desktop.reload();
    await waitUntil(
      async () => (await titles())[0] === 'Phone checks',
      'the session with the latest activity is first',
    );
    const first = desktop.locator('li[data-session-id]').first();
    expect(await first.locator('[data-last-activity]').textContent()).toBe('$ echo latest activity');
    expect(await desktop.locator('li[data-session-id]').nth(1).locator('[data-last-activity]').textContent()).toBe(
      'Nothing run yet',
    );
  }, 120_000);

  it('UX-3 offline, a running command says its status is unknown instead of a live timer', async () => {
    await phone.goto(`${suite.runtime.appOrigin}/${sessionHash}`);
    await sendCommand(phone, 'sleep 600');
    const status = commandRow(phone, 'sleep 600').locator('[data-status]');
    await waitUntil(async () => (await status.getAttribute('data-status')) === 'running', 'the command runs');
    const elapsed = /\d+ ms|\d+\.\d s|\d+ min \d+ s/;
    await waitUntil(
      async () => elapsed.test((await commandRow(phone, 'sleep 600').textContent()) ?? ''),
      'online, the running row counts its time',
    );

    await suite.runtime.stop();
    await phone.getByTestId('offline-banner').waitFor({ timeout: 30_000 });
    await waitUntil(
      async () => (await status.textContent()) === 'status unknown while offline',
      'the running row says its status is unknown',
    );
    // No timer on the row while offline: nothing there counts on.
    expect(await commandRow(phone, 'sleep 600').textContent()).not.toMatch(elapsed);
    await phone.screenshot({ path: keptScreenshotPath('nav', 'offline-status-unknown-phone-light') });
  }, 120_000);
});
