import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../fixtures/waitUntil';
import type { RuntimeProcess } from '../fixtures/runtimeProcess';
import { openPreview, previewedFrame, shownPreviewId, startPairedPreviewApp } from './previewHarness';

const CALM_PAGE = '<!doctype html><html><head><title>calm</title></head><body><p id="calm">calm page</p></body></html>';
/** Spins as soon as it has told the app it is ready: `for(;;){}` never yields to its event loop. */
const SPIN_PAGE =
  '<!doctype html><html><head><title>spin</title></head><body><p>spinning</p><script>addEventListener("load", () => setTimeout(() => { for (;;) {} }, 0));</script></body></html>';
/** Spins when the test says so, after it has answered: `window.startSpinning()`. */
const SPIN_ON_DEMAND_PAGE =
  '<!doctype html><html><head><title>spin later</title></head><body><p>ready</p><script>window.startSpinning = () => void setTimeout(() => { for (;;) {} }, 0);</script></body></html>';
/** Allocates without bound until its process runs out of memory. */
const ALLOCATE_PAGE =
  '<!doctype html><html><head><title>allocate</title></head><body><p>allocating</p><script>addEventListener("load", () => { const kept = []; const grow = () => { for (let i = 0; i < 64; i++) kept.push(new Array(1 << 20).fill(i)); setTimeout(grow, 0); }; setTimeout(grow, 0); });</script></body></html>';

/**
 * SEC-9, PRV-5 in Chromium: a preview that spins or allocates without bound runs in a process of
 * its own (Origin-Agent-Cluster on the preview origin), so the app keeps answering, notices the
 * preview is gone or stuck, and offers to start it again.
 */
describe('SEC-9 a hostile preview cannot freeze or crash the app', () => {
  let close: (() => Promise<void>) | undefined;
  let project: string;
  let runtime: RuntimeProcess;
  let page: Page;

  beforeAll(async () => {
    ({ project, runtime, page, close } = await startPairedPreviewApp(
      {
        'spin.html': SPIN_PAGE,
        'spin-later.html': SPIN_ON_DEMAND_PAGE,
        'allocate.html': ALLOCATE_PAGE,
        'calm.html': CALM_PAGE,
      },
      // A small heap for the renderers, so the allocating page runs out of memory in seconds, not gigabytes.
      { chromiumArgs: ['--js-flags=--max-old-space-size=192'] },
    ));
  }, 120_000);
  afterAll(async () => {
    await close?.();
  });

  it('SEC-9 the app answers a click while its preview spins in `for(;;){}`', async () => {
    await openPreview(page, runtime, project, 'spin-later.html');
    const frame = await previewedFrame(page, '/spin-later.html');
    await frame.waitForFunction(() => typeof (window as { startSpinning?: unknown }).startSpinning === 'function');
    await frame.evaluate(() => (window as unknown as { startSpinning(): void }).startSpinning());
    // Asked after the page started spinning: it can only answer once the loop ends, which it never does.
    let previewAnswered = false;
    void frame
      .evaluate(() => true)
      .then(
        () => (previewAnswered = true),
        () => undefined,
      );
    // The preview is stuck in its loop, and still shown, when the app is asked to answer a click.
    expect(previewAnswered).toBe(false);
    expect(await page.locator('iframe.preview-frame').count()).toBe(1);
    const started = Date.now();
    // A click on the app's own header: the app leaves the spinning preview for the Web screen.
    await page.getByRole('link', { name: 'Web', exact: true }).click({ timeout: 10_000 });
    const address = page.getByLabel('Web address');
    await address.click({ timeout: 10_000 });
    expect(await address.evaluate((input) => input === document.activeElement, undefined, { timeout: 10_000 })).toBe(
      true,
    );
    const clickToEffectMs = Date.now() - started;
    await address.pressSequentially('https://example.org/', { timeout: 10_000 });
    expect(await address.inputValue({ timeout: 10_000 })).toBe('https://example.org/');
    // The loop never ended: the preview never answered, so the click was answered while it spun.
    expect(previewAnswered).toBe(false);
    console.info(`SEC-9 click-to-focus in the app while a preview spins: ${clickToEffectMs} ms`);
  }, 60_000);

  it('SEC-9 a preview stuck in a loop is noticed: the app stops it and offers to start it again', async () => {
    await openPreview(page, runtime, project, 'spin.html');
    await previewedFrame(page, '/spin.html');
    const stuckId = await shownPreviewId(page);
    await page.getByRole('alert').filter({ hasText: 'The preview stopped responding' }).waitFor({ timeout: 30_000 });
    expect(await page.locator('iframe.preview-frame').count()).toBe(0);
    fs.writeFileSync(path.join(project, 'spin.html'), CALM_PAGE);
    await page.getByRole('button', { name: 'Start again' }).click();
    await page.locator('iframe.preview-frame').waitFor();
    const freshId = await shownPreviewId(page);
    expect(freshId).not.toBe(stuckId);
    await (await previewedFrame(page, '/spin.html', 30_000, freshId)).locator('#calm').waitFor();
    fs.writeFileSync(path.join(project, 'spin.html'), SPIN_PAGE);
  }, 60_000);

  // NOTE: last, because Playwright marks the whole page crashed when any of its frames' processes
  // dies; from then on the app is driven through a CDP session of its own, which stays usable.
  it('SEC-9 a preview that allocates until its process dies leaves the app alive, says the preview stopped and starts it again', async () => {
    const app = await page.context().newCDPSession(page);
    const evaluate = async <T>(expression: string): Promise<T> =>
      (await app.send('Runtime.evaluate', { expression, returnByValue: true })).result.value as T;
    await openPreview(page, runtime, project, 'allocate.html');
    await previewedFrame(page, '/allocate.html');
    const firstId = await page.locator('iframe.preview-frame').getAttribute('data-preview-id');
    // NOTE: the page blocks its own event loop while the garbage collector fights for the last
    // megabytes; on a busy machine that can outlast the watchdog, which then stops it as stuck
    // before it runs out of memory. Either way the app must survive, say so and offer a restart.
    await waitUntil(
      async () =>
        /The preview crashed|The preview stopped responding/.test(
          await evaluate<string>(`document.querySelector('.preview-halted')?.textContent ?? ''`),
        ),
      'the app says the preview crashed or stopped responding',
      60_000,
    );
    expect(await evaluate<number>(`document.querySelectorAll('iframe.preview-frame').length`)).toBe(0);
    // The app answers a real click: Start again opens a fresh preview (a new id, so a new origin and process).
    fs.writeFileSync(path.join(project, 'allocate.html'), CALM_PAGE);
    const box = await evaluate<{ x: number; y: number }>(
      `(() => { const r = [...document.querySelectorAll('.preview-halted button')].find((b) => b.textContent === 'Start again').getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`,
    );
    for (const type of ['mousePressed', 'mouseReleased'] as const)
      await app.send('Input.dispatchMouseEvent', { type, x: box.x, y: box.y, button: 'left', clickCount: 1 });
    await waitUntil(async () => {
      const id = await evaluate<string | null>(
        `document.querySelector('iframe.preview-frame')?.dataset.previewId ?? null`,
      );
      return id !== null && id !== firstId;
    }, 'a fresh preview replaces the crashed one');
  }, 90_000);
});
