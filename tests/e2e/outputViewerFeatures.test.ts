import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { clickOutputControl, commandRow, sendCommand, textInView } from './appHarness';
import { useAppSuite } from './appSuite';
import { backToTimeline, CLIPBOARD, openOutput, OUTPUT, runAndOpen, shellSessionPage } from './outputViewerHarness';
import { waitUntil } from '../fixtures/waitUntil';
import { docsScreenshotPath } from './screensHarness';

/** The largest "tick N" line in the viewer's visible area, or 0. */
function lastTickInView(page: Page): Promise<number> {
  return page.evaluate((selector) => {
    const box = document.querySelector(selector);
    if (!box) return 0;
    const view = box.getBoundingClientRect();
    let last = 0;
    for (const el of box.querySelectorAll<HTMLElement>('[data-offset]')) {
      const r = el.getBoundingClientRect();
      const match = /^tick (\d+)$/.exec(el.textContent ?? '');
      if (match && r.top >= view.top - 1 && r.bottom <= view.bottom + 1) last = Math.max(last, Number(match[1]));
    }
    return last;
  }, OUTPUT);
}

/** Whether a whole output line (marks inside it included) with exactly this text is in view. */
function lineInView(page: Page, text: string): Promise<boolean> {
  return page.evaluate(
    ({ selector, text }) => {
      const box = document.querySelector(selector);
      if (!box) return false;
      const view = box.getBoundingClientRect();
      return [...box.querySelectorAll<HTMLElement>('[data-offset]')].some((el) => {
        const r = el.getBoundingClientRect();
        return el.textContent === text && r.top >= view.top - 1 && r.bottom <= view.bottom + 1;
      });
    },
    { selector: OUTPUT, text },
  );
}

describe('the output viewer: follow, wrap, copy, ANSI, find (PWA-2)', () => {
  const suite = useAppSuite();
  let page: Page;

  beforeAll(async () => {
    page = await shellSessionPage(suite, { viewport: { width: 1000, height: 700 } }, CLIPBOARD);
  }, 60_000);

  it('PWA-2 SES-4 a running command is followed: new lines come into view as they are printed, up to the last', async () => {
    const command = 'for i in $(seq 1 300); do echo tick $i; sleep 0.02; done';
    await sendCommand(page, command);
    await commandRow(page, command).locator('[data-status="running"]').waitFor();
    await openOutput(page, command);
    const seen: number[] = [];
    await waitUntil(
      async () => {
        seen.push(await lastTickInView(page));
        return seen.at(-1) === 300;
      },
      'the last tick is followed into view',
      30_000,
    );
    // The view moved with the output: several distinct last lines were seen on the way, in order.
    const distinct = [...new Set(seen.filter((n) => n > 0))];
    expect(distinct.length).toBeGreaterThan(3);
    expect(distinct).toEqual([...distinct].sort((a, b) => a - b));
    await backToTimeline(page);
  });

  it('PWA-2 ANSI colours and bold render as styles, and no escape sequence shows as text', async () => {
    const command = "printf '\\033[31mred words\\033[0m plain \\033[1;32mbold green\\033[0m\\n'";
    await runAndOpen(page, command);
    await waitUntil(() => textInView(page, OUTPUT, 'red words'), 'the red segment shows');
    const styles = await page.evaluate((selector) => {
      const box = document.querySelector(selector)!;
      const find = (text: string) =>
        [...box.querySelectorAll<HTMLElement>('*')].find((el) => el.children.length === 0 && el.textContent === text)!;
      const style = (el: HTMLElement) => ({
        color: getComputedStyle(el).color,
        weight: getComputedStyle(el).fontWeight,
      });
      return {
        red: style(find('red words')),
        green: style(find('bold green')),
        line: box.querySelector('[data-offset]')!.textContent,
      };
    }, OUTPUT);
    const rgb = (css: string) => css.match(/\d+/g)!.map(Number) as [number, number, number];
    const [r1, g1, b1] = rgb(styles.red.color);
    expect(r1).toBeGreaterThan(150);
    expect(Math.max(g1, b1)).toBeLessThan(r1 / 1.5);
    const [r2, g2, b2] = rgb(styles.green.color);
    expect(g2).toBeGreaterThan(Math.max(r2, b2));
    expect(Number(styles.green.weight)).toBeGreaterThanOrEqual(600);
    expect(Number(styles.red.weight)).toBeLessThan(600);
    expect(styles.line).toBe('red words plain bold green');
    await backToTimeline(page);
  });

  it('PWA-2 Wrap folds a long line into the width of the view; off, the line scrolls sideways', async () => {
    const command = "printf 'start-%s-finish\\n' $(printf 'x%.0s' $(seq 1 3000))";
    await runAndOpen(page, command);
    const measure = () =>
      page.evaluate((selector) => {
        const box = document.querySelector<HTMLElement>(selector)!;
        const line = box.querySelector<HTMLElement>('[data-offset="0"]')!;
        return {
          lineHeight: line.getBoundingClientRect().height,
          scrollWidth: box.scrollWidth,
          clientWidth: box.clientWidth,
        };
      }, OUTPUT);
    await waitUntil(async () => (await page.locator(`${OUTPUT} [data-offset="0"]`).count()) === 1, 'the line shows');
    const unwrapped = await measure();
    expect(unwrapped.scrollWidth).toBeGreaterThan(unwrapped.clientWidth * 2);
    expect(unwrapped.lineHeight).toBeLessThan(30);
    const wrapButton = page.getByRole('button', { name: 'Wrap' });
    await wrapButton.click();
    expect(await wrapButton.getAttribute('aria-pressed')).toBe('true');
    await waitUntil(async () => (await measure()).lineHeight > 100, 'the line folds');
    const wrapped = await measure();
    expect(wrapped.scrollWidth).toBeLessThanOrEqual(wrapped.clientWidth + 1);
    await wrapButton.click();
    await waitUntil(async () => (await measure()).lineHeight < 30, 'the line unfolds again');
    await backToTimeline(page);
  });

  it('PWA-2 Copy puts the lines on screen on the clipboard, exactly', async () => {
    const command = "printf 'alpha 1\\nbeta\\ttabbed\\ngamma  spaced  \\n'";
    await runAndOpen(page, command);
    await waitUntil(() => textInView(page, OUTPUT, 'alpha 1'), 'the output shows');
    await page.evaluate(() => navigator.clipboard.writeText('before'));
    await page.getByRole('button', { name: 'Copy' }).click();
    await waitUntil(
      async () => (await page.evaluate(() => navigator.clipboard.readText())) !== 'before',
      'the clipboard changes',
    );
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('alpha 1\nbeta\ttabbed\ngamma  spaced  \n');
    await backToTimeline(page);
  });

  it('PWA-2 Find: Enter goes to the first match, ↓ to the next, ↑ back, and past the last match it says so', async () => {
    const command =
      'for i in $(seq 1 3000); do if [ $((i % 1000)) -eq 0 ]; then echo needle $i; else echo hay $i; fi; done';
    await runAndOpen(page, command);
    // A finished command opens at its end (UX-1); a first search from there wraps to the first match.
    await waitUntil(() => lineInView(page, 'hay 2999'), 'the output shows its end');
    await page.getByLabel('Find in output').fill('needle 1000');
    await page.getByLabel('Find in output').press('Enter');
    await page.getByRole('status').filter({ hasText: 'Match 1 of 1 (from the top)' }).waitFor();
    await waitUntil(() => lineInView(page, 'needle 1000'), 'the wrapped search shows the match above');
    await clickOutputControl(page, 'Start');
    await waitUntil(() => textInView(page, OUTPUT, 'hay 1'), 'the output shows its start');
    const marked = () =>
      page
        .locator(`${OUTPUT} mark`)
        .evaluateAll((marks) => marks.map((m) => m.parentElement?.textContent ?? m.textContent));
    const find = page.getByLabel('Find in output');
    const status = (text: string) => page.getByRole('status').filter({ hasText: text }).waitFor();
    await find.fill('needle');
    await find.press('Enter');
    await waitUntil(() => lineInView(page, 'needle 1000'), 'the first match shows');
    // The desktop searched the whole output: the viewer knows how many matches there are.
    await status('Match 1 of 3');
    await page.getByRole('button', { name: 'Next match' }).click();
    await waitUntil(() => lineInView(page, 'needle 2000'), 'the second match shows');
    await status('Match 2 of 3');
    await page.getByRole('button', { name: 'Next match' }).click();
    await waitUntil(() => lineInView(page, 'needle 3000'), 'the third match shows');
    await status('Match 3 of 3');
    await page.getByRole('button', { name: 'Next match' }).click();
    await status('No more matches below (3 in all).');
    await page.getByRole('button', { name: 'Previous match' }).click();
    await waitUntil(() => lineInView(page, 'needle 2000'), 'back at the second match');
    await status('Match 2 of 3');
    expect((await marked()).some((text) => text?.includes('needle 2000'))).toBe(true);
    await find.fill('no such text anywhere');
    await find.press('Enter');
    await status('No matches.');
    await backToTimeline(page);
  });
});

describe('find at phone size (PWA-2)', () => {
  const suite = useAppSuite();
  let page: Page;

  beforeAll(async () => {
    page = await shellSessionPage(suite, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  }, 60_000);

  it('PWA-2 the find field takes the toolbar while typing and the count shows; nothing scrolls sideways (light and dark)', async () => {
    const command =
      'for i in $(seq 1 20000); do if [ $((i % 1000)) -eq 0 ]; then echo needle $i; else echo hay $i; fi; done';
    await runAndOpen(page, command);
    await clickOutputControl(page, 'Start');
    await waitUntil(() => lineInView(page, 'hay 1'), 'the output shows its start');
    const find = page.getByLabel('Find in output');
    await find.fill('needle');
    await find.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Match 1 of 20' }).waitFor();
    await page.getByRole('button', { name: 'Next match' }).click();
    await page.getByRole('status').filter({ hasText: 'Match 2 of 20' }).waitFor();
    await waitUntil(() => lineInView(page, 'needle 2000'), 'the second match shows');
    await find.focus();
    const facts = await page.evaluate(() => {
      const field = document.querySelector<HTMLElement>('.output-find')!.getBoundingClientRect();
      const toolbar = document.querySelector<HTMLElement>('[data-testid="output-toolbar"]')!.getBoundingClientRect();
      return { field: field.width, toolbar: toolbar.width, scrollWidth: document.documentElement.scrollWidth };
    });
    // The back button, ↑, ↓ and the menu keep their 44 px; the field has the rest.
    expect(facts.field).toBeGreaterThan(facts.toolbar - 4 * 50 - 40);
    expect(facts.scrollWidth).toBeLessThanOrEqual(390);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: docsScreenshotPath(`output-find-phone-${colorScheme}`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await backToTimeline(page);
  });
});

describe('a replaced generation in the viewer (OUT-5, OUT-3)', () => {
  // The kernel refuses to grow any file of the runtime past 4 MiB: the stream fails part-way,
  // and at completion the head/tail aggregate replaces it as generation 2 (OUT-3).
  const suite = useAppSuite({
    runtime: () => ({ wrap: (cmd) => ['bash', '-c', 'ulimit -f 4096; exec "$@"', 'bash', ...cmd] }),
  });
  let page: Page;

  beforeAll(async () => {
    page = await shellSessionPage(suite, { viewport: { width: 1000, height: 700 } });
  }, 60_000);

  it('OUT-5 a viewer open on generation 1 moves to generation 2 without an error and reads the new output', async () => {
    // 13-byte lines, about 6.5 MB; the command then runs on until the test has read generation 1.
    const generationOneRead = path.join(suite.runtime.projectDir, 'generation-1-read');
    const command = `seq -f 'line %07.0f' 1 500000; until [ -e '${generationOneRead}' ]; do sleep 0.05; done`;
    await sendCommand(page, command);
    await commandRow(page, command).locator('[data-status="running"]').waitFor();
    await commandRow(page, command).click();
    await page.locator(OUTPUT).waitFor();
    // Opened while running, it follows the tail of generation 1.
    await waitUntil(
      async () => (await page.locator(`${OUTPUT} [data-offset]`).count()) > 0,
      'generation 1 shows',
      30_000,
    );
    fs.writeFileSync(generationOneRead, '');
    // The row follows the command to its end; the viewer is still open.
    await waitUntil(
      async () => (await page.getByTestId('output-size').textContent())?.includes('running') === false,
      'the command completes',
      30_000,
    );
    await page.getByRole('button', { name: 'End', exact: true }).click();
    await waitUntil(() => textInView(page, OUTPUT, 'line 0500000'), 'the last line of generation 2 shows', 30_000);
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await waitUntil(() => textInView(page, OUTPUT, 'line 0000001'), 'the first line shows', 30_000);
    // Generation 2 is the aggregate: head, the omitted marker, tail.
    await page.getByLabel('Find in output').fill('bytes omitted');
    await page.getByLabel('Find in output').press('Enter');
    await waitUntil(
      async () => (await page.locator(`${OUTPUT} mark`).count()) > 0,
      'the omitted marker is found',
      30_000,
    );
    // (Next's own route announcer is an empty role="alert" region: count the app's error lines.)
    expect(await page.locator('p.error[role="alert"]').allTextContents()).toEqual([]);
    const client = await suite.runtime.connect();
    try {
      const [session] = (await client.call('sessions.list')).sessions;
      const row = (await client.call('sessions.timeline', { sessionId: session!.id })).rows.find(
        (r) => r.kind === 'command',
      );
      expect(row).toMatchObject({ generation: 2, complete: true, sourceIncomplete: true });
    } finally {
      client.close();
    }
  });
});
