import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { DESKTOP_CONTEXT, textInView } from './appHarness';
import { useAppSuite } from './appSuite';
import { runAndOpen, shellSessionPage } from './outputViewerHarness';
import { waitUntil } from '../fixtures/waitUntil';

// "row 000000001\n": 14 bytes a line, so a line's number follows from its byte offset.
const LINE_BYTES = 14;
const LINES = 15_000_000; // 210 MB
const COMMAND = `seq -f 'row %09.0f' 1 ${LINES}`;
const rowText = (n: number) => `row ${String(n).padStart(9, '0')}`;

/** The rendered lines in the viewer's visible area, with their byte offsets. */
function visibleLines(page: Page): Promise<{ offset: number; text: string }[]> {
  return page.evaluate(() => {
    const box = document.querySelector('[data-testid="output"]')!;
    const view = box.getBoundingClientRect();
    return [...box.querySelectorAll<HTMLElement>('[data-offset]')]
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.bottom > view.top && r.top < view.bottom;
      })
      .map((el) => ({ offset: Number(el.dataset.offset), text: el.textContent ?? '' }))
      .sort((a, b) => a.offset - b.offset);
  });
}

/** Every visible line is the line its byte offset says, and they are consecutive. */
async function expectConsistentView(page: Page): Promise<number> {
  const lines = await visibleLines(page);
  expect(lines.length).toBeGreaterThan(5);
  for (const [i, line] of lines.entries()) {
    expect(line.offset % LINE_BYTES).toBe(0);
    expect(line.text).toBe(rowText(line.offset / LINE_BYTES + 1));
    if (i > 0) expect(line.offset - lines[i - 1]!.offset).toBe(LINE_BYTES);
  }
  return lines[0]!.offset / LINE_BYTES + 1;
}

describe('the output viewer on a 210 MB output (PWA-2)', () => {
  const suite = useAppSuite();
  let page: Page;

  beforeAll(async () => {
    page = await shellSessionPage(suite, DESKTOP_CONTEXT);
    // Writing 210 MB takes a while on a busy machine.
    await runAndOpen(page, COMMAND, 150_000);
  }, 180_000);

  it('PWA-2 UX-1 a finished command opens at its last line, the scrubber at its end; Start shows the first line; End goes back', async () => {
    await waitUntil(() => textInView(page, '[data-testid="output"]', rowText(LINES)), 'the last line shows');
    const scrubber = page.getByRole('slider', { name: 'Position in output' });
    await waitUntil(
      async () => (await scrubber.inputValue()) === (await scrubber.getAttribute('max')),
      'the scrubber rests at its end',
    );
    await expectConsistentView(page);
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await waitUntil(() => textInView(page, '[data-testid="output"]', rowText(1)), 'the first line shows after Start');
    await waitUntil(async () => (await scrubber.inputValue()) === '0', 'the scrubber is at its start');
    await page.getByRole('button', { name: 'End', exact: true }).click();
    await waitUntil(() => textInView(page, '[data-testid="output"]', rowText(LINES)), 'the last line shows after End');
  });

  it('PWA-2 the scrubber jumps by byte position and shows the right lines there', async () => {
    // Found within their own boxes: a role query over the whole page walks every output line.
    const scrubber = page.locator('.scrubber-track').getByRole('slider', { name: 'Position in output' });
    for (const [fraction, from] of [
      [0.3, 'Start'],
      [0.5, 'End'],
      [0.8, 'Start'],
      [0.6, 'End'],
    ] as const) {
      await page.getByTestId('output-toolbar').getByRole('button', { name: from, exact: true }).click();
      await waitUntil(
        () => textInView(page, '[data-testid="output"]', rowText(from === 'Start' ? 1 : LINES)),
        `at the ${from}`,
      );
      await scrubber.fill(String(Math.round(fraction * Number(await scrubber.getAttribute('max')))));
      const expected = Math.floor(fraction * LINES);
      await waitUntil(async () => {
        const lines = await visibleLines(page);
        return lines.length > 0 && Math.abs(lines[0]!.offset / LINE_BYTES - expected) < 40_000;
      }, `the view lands near line ${expected}`);
      await expectConsistentView(page);
    }
  });

  it('PWA-2 scrolling across page boundaries keeps every line and holds a bounded window', async () => {
    await page.getByTestId('output-toolbar').getByRole('button', { name: 'Start', exact: true }).click();
    await waitUntil(() => textInView(page, '[data-testid="output"]', rowText(1)), 'back at the start');
    const windowEnds = new Set<string>();
    let top = 1;
    // About six 256 KiB pages of lines, scrolled in screen-sized steps at the bottom edge.
    for (let step = 0; step < 60 && top < 6 * 18_724; step++) {
      await page.evaluate(() => {
        const box = document.querySelector('[data-testid="output"]')!;
        box.scrollTop = box.scrollHeight - box.clientHeight - 100;
      });
      await page.waitForTimeout(120);
      top = await expectConsistentView(page);
      // Both ends in one read: the window may move between two.
      windowEnds.add(
        await page.evaluate(() => {
          const box = document.querySelector<HTMLElement>('[data-testid="output"]')!;
          return `${box.dataset.windowStart}-${box.dataset.windowEnd}`;
        }),
      );
    }
    expect(top).toBeGreaterThan(5 * 18_724);
    // The window moved on and never held more than four pages.
    const spans = [...windowEnds].map((w) => w.split('-').map(Number) as [number, number]);
    expect(Math.max(...spans.map(([start, end]) => end - start))).toBeLessThanOrEqual(4 * 256 * 1024);
    expect(Math.min(...spans.map(([start]) => start))).toBe(0);
    expect(Math.max(...spans.map(([start]) => start))).toBeGreaterThan(256 * 1024);
    // Scrolling back up reads the pages it dropped.
    for (let step = 0; step < 40; step++) {
      await page.evaluate(() => {
        document.querySelector('[data-testid="output"]')!.scrollTop = 0;
      });
      await page.waitForTimeout(120);
      top = await expectConsistentView(page);
      if (top === 1) break;
    }
    expect(top).toBe(1);
  });

  it('PWA-2 find jumps to a match far away and marks it', async () => {
    // About 40 MB from the start: find reads every page on the way.
    const target = 2_987_654;
    await page.getByLabel('Find in output').fill(rowText(target));
    await page.getByLabel('Find in output').press('Enter');
    await waitUntil(() => textInView(page, '[data-testid="output"]', rowText(target)), 'the match shows', 60_000);
    expect(await page.locator('[data-testid="output"] mark').first().textContent()).toBe(rowText(target));
    await expectConsistentView(page);
  }, 180_000);
});
