/**
 * TERM-4 in the page: one key pressed in a terminal session of the real app in Chromium at 390x844,
 * timed inside the page from its keydown until the echoed character is in xterm.js's rows and the
 * next frame has begun. The reference, in the same page and run: the same key sent as one byte over
 * a plain WebSocket to an echo server in a process of its own on loopback, the reply written into a
 * bare span and timed the same way. Rounds alternate who goes first.
 */
import type { Page } from 'playwright-core';
import { launchChromium } from '../../tests/fixtures/browser';
import { startRuntimeProcess } from '../../tests/fixtures/runtimeProcess';
import { terminalTestEnv } from '../../tests/fixtures/terminalSession';
import { waitUntil } from '../../tests/fixtures/waitUntil';
import { pairThroughLink, PHONE_CONTEXT, startupPairingCode } from '../../tests/e2e/appHarness';
import { injectPageModule } from '../lib/pageBundle';
import { benchSettings, type Benchmark, type BenchOutcome } from '../lib/report';
import { median, percentile, rotateRounds } from '../lib/rounds';
import { startEchoServer } from '../term-echo';

const ROWS = '.xterm-rows';
const SPAN = '#bench-echo-span';
const WAIT_MS = 60_000;

interface EchoPage {
  armEcho(selector: string, key: string): void;
  echoDrawn(): Promise<number>;
  openReferenceEcho(url: string): Promise<void>;
  termEchoText(selector: string): string;
}
const inPage = (page: Page) => ({
  arm: (selector: string, key: string) => page.evaluate(([s, k]) => (globalThis as unknown as EchoPage).armEcho(s, k), [selector, key] as const),
  drawn: () => page.evaluate(() => (globalThis as unknown as EchoPage).echoDrawn()),
  text: (selector: string) => page.evaluate((s) => (globalThis as unknown as EchoPage).termEchoText(s), selector),
});

/** Times `keys` keys: each is armed in the page, pressed, timed to its drawn echo, then undone (untimed). */
async function timedKeys(page: Page, focus: string, selector: string, keys: number, undo: boolean): Promise<number[]> {
  const probe = inPage(page);
  await page.locator(focus).focus();
  const samples: number[] = [];
  for (let i = 0; i < keys; i++) {
    const key = String.fromCharCode(97 + (i % 26));
    const before = await probe.text(selector);
    await probe.arm(selector, key);
    await page.keyboard.press(key);
    samples.push(await probe.drawn());
    if (undo) {
      await page.keyboard.press('Backspace');
      await waitUntil(async () => (await probe.text(selector)) === before, 'the key is erased', WAIT_MS);
    }
  }
  return samples;
}

export const termEchoPhone: Benchmark = {
  name: 'term-echo-phone',
  async run(progress): Promise<BenchOutcome> {
    // HBCODE_BENCH_BYTES sets the keystrokes per round here.
    const { totalBytes: keysPerRound, rounds, overridden } = benchSettings(100, 4);
    const runtime = await startRuntimeProcess({ env: terminalTestEnv() });
    const echo = await startEchoServer();
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ ...PHONE_CONTEXT, bypassCSP: true });
      await pairThroughLink(page, runtime.appOrigin, startupPairingCode(runtime));
      await page.getByLabel('Agent').first().selectOption('terminal');
      await page.getByRole('button', { name: 'New session' }).first().click();
      await page.locator('[data-terminal-phase="live"]').waitFor({ timeout: WAIT_MS });
      await injectPageModule(page, 'termEcho.page.ts');
      const probe = inPage(page);
      await waitUntil(async () => /[$#]$/.test(await probe.text(ROWS)), 'the prompt', WAIT_MS);
      await page.evaluate((url) => (globalThis as unknown as EchoPage).openReferenceEcho(url), echo.url);

      const terminal = () => timedKeys(page, '.xterm-helper-textarea', ROWS, keysPerRound, true);
      const plain = () => timedKeys(page, '#bench-echo-input', SPAN, keysPerRound, false);
      progress('TERM-4 in the page: warm-up (untimed)');
      await terminal();
      await plain();
      const results = await rotateRounds(rounds, { terminal, echo: plain }, progress, (s) => `median ${median(s).toFixed(2)} ms, p95 ${percentile(s, 0.95).toFixed(2)} ms`);
      const terminalMs = results.terminal.flat();
      const echoMs = results.echo.flat();
      const line = (stat: 'median' | 'p95', p: number) => ({
        rule: 'TERM-4',
        label: `keystroke to the drawn echo at 390x844, directly, ${stat}`,
        unit: 'ms' as const,
        better: 'lower' as const,
        oursName: 'keydown → app socket → PTY → bash → xterm.js rows, next frame',
        referenceName: '1-byte WebSocket echo into a bare span, next frame',
        ours: percentile(terminalMs, p),
        reference: percentile(echoMs, p),
        target: null,
      });
      return {
        comparisons: [line('median', 0.5), line('p95', 0.95)],
        parameters: { rounds, keysPerRound, overridden, viewport: '390x844' },
        measurements: { terminalMs, echoMs },
        notes: [
          "Both are timed inside the page: performance.now() in a capturing keydown listener, until a MutationObserver sees the echoed character in the element's text and a requestAnimationFrame callback after it runs (the frame that draws it begins). Chrome DevTools Protocol's own key dispatch is outside the span.",
          'The terminal key is erased with Backspace after each sample (untimed), so every key lands on the same empty prompt line.',
          'The echo server runs in a Node process of its own on loopback, as the runtime does.',
          'Through the relay is not measured by this benchmark yet.',
        ],
      };
    } finally {
      await browser.close();
      echo.close();
      await runtime.stop();
    }
  },
};
