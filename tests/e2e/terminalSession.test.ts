import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { terminalTestEnv } from '../fixtures/terminalSession';
import { waitUntil } from '../fixtures/waitUntil';
import { keptScreenshotPath, newPairingCode, PHONE_CONTEXT } from './appHarness';
import { pairedPage, useAppSuite } from './appSuite';

// TERM-1…TERM-6 in real Chromium at phone size against the real runtime: a terminal session's
// shell runs tty, vim and top from the phone's keys and key row, follows the screen's size,
// shows the same screen after a reload, and a second device sees the same output.

/** The shell's prompt (user@host:folder# ) at the end of a line. */
const PROMPT = /@[^\n]*:[^\n]*[$#][ \t]*$/m;
const DESKTOP = { viewport: { width: 1440, height: 900 } };
const shot = (name: string) => keptScreenshotPath('terminal', name);

/** The characters xterm.js shows now (its DOM renderer's rows), spaces normalised. */
const screenText = (page: Page) =>
  page.evaluate(
    () => (document.querySelector('.xterm-rows') as HTMLElement | null)?.innerText.replace(/\u00a0/g, ' ') ?? '',
  );

async function waitScreen(page: Page, pattern: RegExp, what: string, timeoutMs = 30_000): Promise<RegExpExecArray> {
  let last = '';
  return waitUntil(
    async () => pattern.exec((last = await screenText(page))),
    () => `${what}: the screen shows ${pattern} (it shows ${JSON.stringify(last.trim().slice(-800))})`,
    timeoutMs,
  );
}

/** Types a line into the terminal with the page's keyboard, as a person would. */
async function typeLine(page: Page, line: string): Promise<void> {
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
}

const keyRow = (page: Page, name: string) =>
  page.getByRole('toolbar', { name: 'Terminal keys' }).getByRole('button', { name, exact: true });

async function lightAndDark(page: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    // The theme follows the scheme on its change event; then one frame for xterm to repaint.
    await page.locator(`.terminal-host[data-scheme="${scheme}"]`).waitFor();
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await page.screenshot({ path: shot(`${name}-${scheme}`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

describe('TERM-6 a terminal session from the phone', () => {
  let projectDir = '';
  const suite = useAppSuite({
    runtime: ({ projectDir: dir }) => {
      projectDir = dir;
      fs.writeFileSync(path.join(dir, 'notes.txt'), 'first line\n');
      return { env: terminalTestEnv() };
    },
  });
  let phone: Page;

  beforeAll(async () => {
    phone = await pairedPage(suite, { ...PHONE_CONTEXT, colorScheme: 'light' });
  }, 120_000);

  it('TERM-6 tty, vim, top, Ctrl from the key row, resize, reload and a second device', async () => {
    // New session → Terminal.
    await phone.getByLabel('Agent').first().selectOption('terminal');
    await phone.getByRole('button', { name: 'New session' }).first().click();
    await phone.locator('[data-terminal-phase="live"]').waitFor({ timeout: 30_000 });
    await waitScreen(phone, PROMPT, 'the prompt');
    await phone.locator('.xterm-helper-textarea').focus();

    await typeLine(phone, 'tty');
    await waitScreen(phone, /\/dev\/pts\/\d+/, 'tty names a pseudo-terminal');

    // The shell's size is the screen's, and follows it (TERM-2).
    const sttySize = async (tag: string) => {
      await typeLine(phone, `echo ${tag}-$(stty size | tr ' ' x)-`);
      const [, r, c] = (await waitScreen(phone, new RegExp(`^${tag}-(\\d+)x(\\d+)-`, 'm'), 'stty size answers')).map(
        Number,
      );
      return { rows: r!, cols: c! };
    };
    const first = await sttySize('size0');
    const rowsOnScreen = await phone.locator('.xterm-rows > div').count();
    expect(first.rows).toBe(rowsOnScreen);
    expect(first.cols).toBeGreaterThan(20);
    expect(first.cols).toBeLessThan(60);
    await phone.setViewportSize({ width: 390, height: 600 });
    let tries = 0;
    // The size goes to the shell once the screen has settled: ask again until it has.
    const smaller = await waitUntil(async () => {
      const size = await sttySize(`size${++tries}`);
      return size.rows < first.rows ? size : null;
    }, 'stty size follows the smaller screen');
    expect(smaller.cols).toBe(first.cols);
    expect(smaller.rows).toBe(await phone.locator('.xterm-rows > div').count());
    await phone.setViewportSize({ width: 390, height: 844 });

    // vim: open, insert, Esc from the key row, :wq; the file changed on disk.
    await typeLine(phone, 'vim notes.txt');
    await waitScreen(phone, /first line/, 'vim shows the file');
    await phone.keyboard.type('Oadded from the phone');
    await keyRow(phone, 'Esc').click();
    await typeLine(phone, ':wq');
    await waitUntil(
      () => fs.readFileSync(path.join(projectDir, 'notes.txt'), 'utf8') === 'added from the phone\nfirst line\n',
      'vim wrote the file',
    );
    await waitScreen(phone, PROMPT, 'back at the prompt after vim');

    // top, quit with q.
    await typeLine(phone, 'top');
    await waitScreen(phone, /load average/, 'top runs');
    await lightAndDark(phone, 'top-phone');
    await phone.keyboard.type('q');
    await typeLine(phone, 'clear; echo top-done-$((40+2))');
    await waitScreen(phone, /top-done-42/, 'top quit and the shell answers');

    // The key row's sticky Ctrl: Ctrl, then c, interrupts a running command.
    await typeLine(phone, 'sleep 600');
    await keyRow(phone, 'Ctrl').click();
    expect(await keyRow(phone, 'Ctrl').getAttribute('aria-pressed')).toBe('true');
    await phone.keyboard.type('c');
    await waitScreen(phone, /\^C/, 'Ctrl+C reached the shell');
    expect(await keyRow(phone, 'Ctrl').getAttribute('aria-pressed')).toBe('false');
    await phone.keyboard.type('echo piped $((6*7)) ');
    await keyRow(phone, '|').click();
    await typeLine(phone, ' tr a-z A-Z');
    await waitScreen(phone, /^PIPED 42/m, 'the key row typed the pipe');
    await typeLine(phone, 'echo ready-for-the-screenshot');
    await waitScreen(
      phone,
      /^ready-for-the-screenshot[ \t]*\n[^\n]*@[^\n]*[$#][ \t]*$/m,
      'the prompt after the last command',
    );
    await lightAndDark(phone, 'phone');

    // Reload: the same screen comes back from the store (TERM-3).
    const before = await screenText(phone);
    await phone.reload();
    await phone.locator('[data-terminal-phase="live"]').waitFor({ timeout: 30_000 });
    await waitScreen(phone, /ready-for-the-screenshot/, 'the replayed screen');
    // The lines from the last command on are the same (what scrolled off above may reflow), and
    // nothing answered the replayed bytes' terminal queries into the shell.
    const lastLines = (text: string) => text.trimEnd().split('\n').slice(-14).join('\n');
    expect(lastLines(await screenText(phone))).toBe(lastLines(before));

    // A second device (another browser context, desktop size) sees the same output, both ways.
    const desktop = await pairedPage(suite, { ...DESKTOP, colorScheme: 'light' }, await newPairingCode(suite.runtime));
    await desktop
      .getByRole('button', { name: /New terminal session/ })
      .first()
      .click();
    await desktop.locator('[data-terminal-phase="live"]').waitFor({ timeout: 30_000 });
    await waitScreen(desktop, /top-done-42/, 'the second device replays the screen');
    await desktop.locator('.xterm-helper-textarea').focus();
    await typeLine(desktop, 'echo from-the-desk-$((1+1))');
    await waitScreen(desktop, /^from-the-desk-2/m, 'the desk sees its own command');
    await waitScreen(phone, /^from-the-desk-2/m, 'the phone sees what the desk typed');
    await phone.locator('.xterm-helper-textarea').focus();
    await typeLine(phone, 'echo from-the-phone-$((2+1))');
    await waitScreen(desktop, /^from-the-phone-3/m, 'the desk sees what the phone typed');
    await lightAndDark(desktop, 'desktop');
    await desktop.context().close();
  }, 240_000);
});
