import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { routeHash } from '../../lib/client/appRoute';
import { waitUntil } from '../fixtures/waitUntil';
import { pairedPage, useAppSuite } from './appSuite';

// PERF-6, HL-2 in real Chromium: a file of many chunks and batches, scrolled in jumps while it
// loads and highlights, shows every line whole and highlighted as its first copy near the top.

const BLOCK_LINES = 4;
const block = (i: number) =>
  [
    `/* block ${i}`,
    `   spans two lines */`,
    `export const value${i}: number = ${i} + 0x${i.toString(16)};`,
    `function twice${i}(n: number): string { return "x".repeat(n * 2); }`,
  ].join('\n');
const BLOCKS = 9_000; // about 600 KB: several read chunks and many highlight batches

describe('PERF-6 source view scrolled far down a big file', () => {
  let projectDir = '';
  const suite = useAppSuite({
    runtime: (setup) => {
      projectDir = setup.projectDir;
      fs.mkdirSync(path.join(projectDir, 'src'), { recursive: true });
      fs.writeFileSync(
        path.join(projectDir, 'src', 'big.ts'),
        Array.from({ length: BLOCKS }, (_, i) => block(i)).join('\n'),
      );
      return {};
    },
  });

  it('PERF-6 HL-2 lines far down, reached in jumps, are whole and highlighted as the first copy', async () => {
    const page = await pairedPage(suite);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(
      `${suite.runtime.appOrigin}/${routeHash({ kind: 'files', projectDirectory: projectDir, path: 'src/big.ts' })}`,
    );
    const view = page.locator('.source-lines');
    await view.locator('[data-line="1"] .source-text span[style]').waitFor({ timeout: 90_000 });

    // Each line's text and the colour of each of its characters, as the page shows them.
    const shown = (line: number) =>
      view.locator(`[data-line="${line}"] .source-text`).evaluate((el) => {
        const colours: string[] = [];
        const walk = (node: Node, colour: string) => {
          if (node.nodeType === Node.TEXT_NODE)
            for (const ch of node.textContent ?? '') colours.push(ch.trim() ? colour : '');
          else
            node.childNodes.forEach((child) =>
              walk(child, child instanceof Element ? getComputedStyle(child).color : colour),
            );
        };
        walk(el, getComputedStyle(el).color);
        return { text: el.textContent, colours };
      });
    const top = await Promise.all(Array.from({ length: BLOCK_LINES }, (_, i) => shown(i + 1)));
    expect(new Set(top.flatMap((line) => line.colours.filter(Boolean))).size).toBeGreaterThan(3);

    // Jump down a few screens at a time, as a fling or a scrollbar drag does, to the end: one jump
    // per frame, like the benchmark's scroll, a run of frames per call into the page.
    for (let runs = 0; runs < 40; runs++) {
      const atEnd = await view.evaluate(async (el) => {
        for (let frame = 0; frame < 50; frame++) {
          el.scrollTop += el.clientHeight * 7;
          await new Promise((resolve) => requestAnimationFrame(resolve));
          if (el.scrollTop + el.clientHeight >= el.scrollHeight - 1 && el.dataset.highlight === 'highlighted')
            return true;
        }
        return false;
      });
      if (atEnd) break;
    }
    expect(await view.getAttribute('data-highlight')).toBe('highlighted');

    const lastBlock = BLOCKS - 1;
    const firstLineOfLast = lastBlock * BLOCK_LINES + 1;
    await view.locator(`[data-line="${firstLineOfLast}"]`).waitFor();
    const expectedText = block(lastBlock).split('\n');
    // Highlighted lines come in with their batch: wait until the last block's lines show coloured.
    await waitUntil(
      async () => (await shown(firstLineOfLast + 2)).colours.some((c, i, all) => c !== '' && c !== all.find(Boolean)),
      'the last block is highlighted',
    );
    for (let i = 0; i < BLOCK_LINES; i++) {
      const line = await shown(firstLineOfLast + i);
      expect(line.text).toBe(expectedText[i]);
      // Comments (carried across batches) and code keep the first copy's colours; the digits of
      // the block number differ in length, so the code lines are compared by their colour runs.
      const runs = (colours: string[]) => colours.filter(Boolean).filter((c, k, all) => k === 0 || all[k - 1] !== c);
      expect(runs(line.colours)).toEqual(runs(top[i]!.colours));
    }
    // The rows shown are the ones in view, not rows left over from where the view jumped from.
    const rowLines = await view
      .locator('.source-line')
      .evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-line'))));
    expect(Math.min(...rowLines)).toBeGreaterThan(BLOCKS * BLOCK_LINES - 200);
    expect(errors).toEqual([]);
  }, 240_000);
});
