import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { RuntimeProcess } from '../fixtures/runtimeProcess';
import { isCommandRow, readWholeOutput } from '../fixtures/sessionHelpers';
import { waitUntil } from '../fixtures/waitUntil';
import {
  clickOutputControl,
  commandRow,
  keptScreenshotPath,
  PHONE_CONTEXT,
  sendCommand,
  waitCommandFinished,
} from './appHarness';
import { useAppSuite } from './appSuite';
import { backToTimeline, CLIPBOARD, openOutput, OUTPUT, runAndOpen, shellSessionPage } from './outputViewerHarness';

/** Kept screenshots of this feature (docs/screenshots, prefix `terminal-`). */
const docScreenshot = (name: string) => keptScreenshotPath('terminal', name);

/** A progress bar, an erased line and a two-row redraw with cursor-up, as npm, curl and docker print them. */
const PROGRESS_COMMAND =
  "printf 'fetch  10%%\\rfetch  55%%\\r\\033[Kfetch 100%%\\nlayer a: 10%%\\nlayer b:  5%%\\n\\033[2A\\033[2Klayer a: done\\n\\033[2Klayer b: 80%%\\ndone\\n'";
const PROGRESS_BYTES =
  'fetch  10%\rfetch  55%\r\u001b[Kfetch 100%\nlayer a: 10%\nlayer b:  5%\n\u001b[2A\u001b[2Klayer a: done\n\u001b[2Klayer b: 80%\ndone\n';

const COLOUR_COMMAND =
  "printf '\\033[31mred16\\033[0m \\033[38;5;208morange256\\033[0m \\033[38;2;10;200;30mtrue\\033[0m \\033[1;3;4mbiu\\033[0m \\033]8;;https://example.com/docs\\033\\\\the docs\\033]8;;\\033\\\\ \\033]8;;javascript:alert(1)\\033\\\\unsafe\\033]8;;\\033\\\\\\n'";

/** The output's lines on screen, in order: their text and the byte offset each starts at. */
function shownLines(page: Page): Promise<{ text: string; offset: number }[]> {
  return page.evaluate((selector) => {
    const box = document.querySelector(selector);
    if (!box) return [];
    return [...box.querySelectorAll<HTMLElement>('[data-offset]')]
      .map((el) => ({
        text: el.textContent ?? '',
        offset: Number(el.dataset.offset),
        top: el.getBoundingClientRect().top,
      }))
      .sort((a, b) => a.top - b.top)
      .map(({ text, offset }) => ({ text, offset }));
  }, OUTPUT);
}

/** The stored bytes of the session's command `command`, read from the runtime as a viewer does. */
async function storedOutput(runtime: RuntimeProcess, command: string): Promise<string> {
  const client = await runtime.connect();
  try {
    const [session] = (await client.call('sessions.list')).sessions;
    const row = (await client.call('sessions.timeline', { sessionId: session!.id })).rows
      .filter(isCommandRow)
      .find((r) => r.command === command);
    if (!row) throw new Error(`no command row for ${command}`);
    return (await readWholeOutput(client, session!.id, row)).toString('utf8');
  } finally {
    client.close();
  }
}

describe('the output viewer reads like a terminal (UX-2)', () => {
  const suite = useAppSuite();
  let page: Page;

  beforeAll(async () => {
    page = await shellSessionPage(suite, { viewport: { width: 1000, height: 700 } }, CLIPBOARD);
  }, 60_000);

  async function clipboardAfter(act: () => Promise<unknown>): Promise<string> {
    await page.evaluate(() => navigator.clipboard.writeText('before'));
    await act();
    await waitUntil(
      async () => (await page.evaluate(() => navigator.clipboard.readText())) !== 'before',
      'the clipboard changes',
    );
    return page.evaluate(() => navigator.clipboard.readText());
  }

  it('UX-2 a progress bar, erase-line and cursor-up collapse as a terminal shows them; the timeline tail too; Copy gives the stored bytes', async () => {
    await sendCommand(page, PROGRESS_COMMAND);
    expect(await waitCommandFinished(page, PROGRESS_COMMAND)).toBe('exit 0');
    const tail = commandRow(page, PROGRESS_COMMAND).getByLabel('Last lines of the output');
    await waitUntil(
      async () => (await tail.textContent()) === 'fetch 100%\nlayer a: done\nlayer b: 80%\ndone',
      'the tail shows the collapsed rows',
    );
    await openOutput(page, PROGRESS_COMMAND);
    await waitUntil(async () => (await shownLines(page)).length === 4, 'the four rows show');
    const lines = await shownLines(page);
    expect(lines.map((l) => l.text)).toEqual(['fetch 100%', 'layer a: done', 'layer b: 80%', 'done']);
    // Each row starts at the byte of the stored line that made it.
    expect(lines.map((l) => l.offset)).toEqual([
      0,
      PROGRESS_BYTES.indexOf('layer a'),
      PROGRESS_BYTES.indexOf('layer b'),
      PROGRESS_BYTES.lastIndexOf('done\n'),
    ]);
    const stored = await storedOutput(suite.runtime, PROGRESS_COMMAND);
    expect(stored).toBe(PROGRESS_BYTES);
    expect(await clipboardAfter(() => clickOutputControl(page, 'Copy'))).toBe(stored);
    // A selection over rows copies the stored bytes of those rows: the second row was rewritten
    // by the bytes after the cursor-up, so they come along.
    const selected = await clipboardAfter(() =>
      page.evaluate((selector) => {
        const rows = [...document.querySelectorAll<HTMLElement>(`${selector} [data-line]`)].sort(
          (a, b) => Number(a.dataset.line) - Number(b.dataset.line),
        );
        document.getSelection()!.setBaseAndExtent(rows[1]!, 0, rows[2]!, rows[2]!.childNodes.length);
        document.execCommand('copy');
      }, OUTPUT),
    );
    expect(selected).toBe(
      PROGRESS_BYTES.slice(PROGRESS_BYTES.indexOf('layer a: 10%'), PROGRESS_BYTES.lastIndexOf('done\n')),
    );
    // Find searches the text shown: "10%" was overwritten everywhere.
    await page.getByLabel('Find in output').fill('10%');
    await page.getByLabel('Find in output').press('Enter');
    await page.getByRole('status').filter({ hasText: 'No matches.' }).waitFor();
    await page.getByLabel('Find in output').fill('');
    await backToTimeline(page);
  });

  it('UX-2 SEC-3 colours in 16, 256 and true colour, bold, italic, underline and an OSC 8 link render; an unsafe link stays text', async () => {
    await runAndOpen(page, COLOUR_COMMAND);
    await waitUntil(async () => (await shownLines(page)).length === 1, 'the line shows');
    expect((await shownLines(page))[0]!.text).toBe('red16 orange256 true biu the docs unsafe');
    const looks = await page.evaluate((selector) => {
      const box = document.querySelector(selector)!;
      const leaf = (text: string) =>
        [...box.querySelectorAll<HTMLElement>('span')].find(
          (el) => el.children.length === 0 && el.textContent?.trim() === text,
        )!;
      const look = (text: string) => {
        const style = getComputedStyle(leaf(text));
        return {
          color: style.color,
          weight: style.fontWeight,
          italic: style.fontStyle,
          underline: style.textDecorationLine,
        };
      };
      const link = leaf('the docs').closest('a');
      return {
        red: look('red16'),
        orange: look('orange256'),
        truecolor: look('true'),
        biu: look('biu'),
        link: link?.getAttribute('href') ?? null,
        unsafeInLink: leaf('unsafe').closest('a') !== null,
        links: box.querySelectorAll('a').length,
      };
    }, OUTPUT);
    const rgb = (css: string) => css.match(/\d+/g)!.map(Number);
    const [r, g, b] = rgb(looks.red.color);
    expect(r!).toBeGreaterThan(150);
    expect(Math.max(g!, b!)).toBeLessThan(r! / 1.5);
    expect(rgb(looks.orange.color)).toEqual([255, 135, 0]);
    expect(rgb(looks.truecolor.color)).toEqual([10, 200, 30]);
    expect(Number(looks.biu.weight)).toBeGreaterThanOrEqual(600);
    expect(looks.biu.italic).toBe('italic');
    expect(looks.biu.underline).toContain('underline');
    expect(looks.link).not.toBeNull();
    expect(decodeURIComponent(looks.link!)).toContain('https://example.com/docs');
    expect(looks.unsafeInLink).toBe(false);
    expect(looks.links).toBe(1);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: docScreenshot(`viewer-desktop-${colorScheme}`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await backToTimeline(page);
  });

  it('UX-2 find matches the shown text across escape sequences and jumps to the byte offset of its row', async () => {
    // "needle" is split by a bold escape in the bytes: only the rendered text holds it.
    const command =
      "for i in $(seq 1 3000); do if [ $((i % 1000)) -eq 0 ]; then printf '\\033[1mneed\\033[0mle %d\\n' $i; else echo hay $i; fi; done";
    await runAndOpen(page, command);
    // From the first line (a finished command opens at its end, UX-1): Enter finds the first match.
    await clickOutputControl(page, 'Start');
    await waitUntil(async () => (await shownLines(page)).some((l) => l.text === 'hay 1'), 'the first line shows');
    const stored = Buffer.from(await storedOutput(suite.runtime, command));
    const offsetOf = (text: string) => stored.indexOf(Buffer.from(text));
    const find = page.getByLabel('Find in output');
    await find.fill('needle');
    for (const [n, press] of [
      [1000, () => find.press('Enter')],
      [2000, () => page.getByRole('button', { name: 'Next match' }).click()],
      [3000, () => page.getByRole('button', { name: 'Next match' }).click()],
    ] as const) {
      await press();
      const expected = offsetOf(`\u001b[1mneed\u001b[0mle ${n}\n`);
      expect(expected).toBeGreaterThan(0);
      await waitUntil(
        async () => (await shownLines(page)).some((l) => l.text === `needle ${n}` && l.offset === expected),
        `the row of needle ${n} shows at byte ${expected}`,
      );
    }
    await backToTimeline(page);
  });
});

describe('the output viewer on a phone (UX-4)', () => {
  const suite = useAppSuite();
  let page: Page;

  beforeAll(async () => {
    page = await shellSessionPage(suite, PHONE_CONTEXT);
  }, 60_000);

  it('UX-4 the controls fit one row with the output right under it, every target is 44 px and nothing scrolls sideways', async () => {
    await sendCommand(page, COLOUR_COMMAND);
    expect(await waitCommandFinished(page, COLOUR_COMMAND)).toBe('exit 0');
    await sendCommand(page, PROGRESS_COMMAND);
    expect(await waitCommandFinished(page, PROGRESS_COMMAND)).toBe('exit 0');
    await page.screenshot({ path: docScreenshot('timeline-phone-light') });
    await commandRow(page, COLOUR_COMMAND).click();
    await page.locator(`${OUTPUT} [data-offset]`).first().waitFor();
    const measure = () =>
      page.evaluate((selector) => {
        const toolbar = document.querySelector<HTMLElement>('[data-testid="output-toolbar"]')!.getBoundingClientRect();
        const output = document.querySelector<HTMLElement>(selector)!.getBoundingClientRect();
        const controls = [
          ...document.querySelectorAll<HTMLElement>(
            '[data-testid="output-toolbar"] button, [data-testid="output-toolbar"] input, .scrubber',
          ),
        ]
          .filter((el) => el.getClientRects().length > 0)
          .map((el) => {
            const r = el.getBoundingClientRect();
            return {
              name: el.getAttribute('aria-label') ?? el.textContent ?? '',
              top: r.top,
              bottom: r.bottom,
              width: r.width,
              height: r.height,
            };
          });
        return {
          toolbar: { top: toolbar.top, bottom: toolbar.bottom, height: toolbar.height },
          outputTop: output.top,
          controls,
          pageScrollWidth: document.documentElement.scrollWidth,
          pageWidth: document.documentElement.clientWidth,
        };
      }, OUTPUT);
    const shut = await measure();
    // One row: a 44 px control with its padding, and every control on it side by side.
    expect(shut.toolbar.height).toBeLessThanOrEqual(60);
    const onRow = shut.controls.filter((c) => c.name !== 'Position in output');
    expect(onRow.map((c) => c.name)).toEqual([
      'Back to timeline',
      'Find in output',
      'Previous match',
      'Next match',
      'More output controls',
    ]);
    for (const control of onRow) {
      expect(control.top).toBeGreaterThanOrEqual(shut.toolbar.top);
      expect(control.bottom).toBeLessThanOrEqual(shut.toolbar.bottom);
    }
    // The output begins right under the toolbar (within its border).
    expect(Math.abs(shut.outputTop - shut.toolbar.bottom)).toBeLessThanOrEqual(2);
    for (const control of shut.controls) {
      expect(Math.min(control.width, control.height), control.name).toBeGreaterThanOrEqual(44);
    }
    expect(shut.pageScrollWidth).toBeLessThanOrEqual(shut.pageWidth);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: docScreenshot(`viewer-phone-${colorScheme}`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });

    // The rarer controls are in the menu, 44 px each, and a choice closes it.
    await page.getByRole('button', { name: 'More output controls' }).click();
    const opened = await measure();
    const menuItems = opened.controls.filter((c) => ['Start', 'End', 'Wrap', 'Copy'].includes(c.name));
    expect(menuItems.map((c) => c.name)).toEqual(['Start', 'End', 'Wrap', 'Copy']);
    for (const item of menuItems) expect(Math.min(item.width, item.height)).toBeGreaterThanOrEqual(44);
    expect(opened.pageScrollWidth).toBeLessThanOrEqual(opened.pageWidth);
    await page.screenshot({ path: docScreenshot('viewer-phone-menu-light') });
    await page.getByRole('button', { name: 'Wrap', exact: true }).click();
    await waitUntil(
      async () => !(await page.getByRole('button', { name: 'Wrap', exact: true }).isVisible()),
      'the menu closes after a choice',
    );
    await clickOutputControl(page, 'Wrap');
    await page.getByRole('button', { name: 'Back to timeline' }).click();

    // A progress output reads the same on a phone.
    await commandRow(page, PROGRESS_COMMAND).click();
    await waitUntil(
      async () =>
        (await page.locator(`${OUTPUT} [data-offset]`).allTextContents()).join('|') ===
        'fetch 100%|layer a: done|layer b: 80%|done',
      'the rows collapse on a phone',
    );
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: docScreenshot('viewer-phone-progress-dark') });
    await page.emulateMedia({ colorScheme: 'light' });
  });
});
