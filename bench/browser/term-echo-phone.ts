/**
 * TERM-4 in the page: one key pressed in a terminal session of the real app in Chromium at 390x844,
 * timed inside the page from its keydown until the echoed character is in xterm.js's rows and the
 * next frame has begun; directly on loopback, and with the app loaded through the relay's TLS
 * passthrough (pebble, nats-server, two relay nodes: RLY-6, RLY-7). The reference, in the same page
 * and run: the same key sent as one byte over a plain WebSocket to an echo server in a process of
 * its own on loopback, the reply written into a bare span and timed the same way. Rounds alternate
 * who goes first.
 */
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../../tests/fixtures/browser';
import { startRuntimeProcess } from '../../tests/fixtures/runtimeProcess';
import { terminalTestEnv } from '../../tests/fixtures/terminalSession';
import { waitUntil } from '../../tests/fixtures/waitUntil';
import { pairThroughLink, PHONE_CONTEXT, startupPairingCode } from '../../tests/e2e/appHarness';
import { startPassthroughAssembly, waitForCertificate } from '../../tests/e2e/relay/passthroughAssembly';
import { injectPageModule } from '../lib/pageBundle';
import { benchSettings, type Benchmark, type BenchOutcome, type Comparison } from '../lib/report';
import { median, percentile, rotateRounds } from '../lib/rounds';
import { startEchoServer } from '../term-echo';

const ROWS = '.xterm-rows';
const SPAN = '#bench-echo-span';
const WAIT_MS = 60_000;
const CERTIFICATE_MS = 120_000;

interface EchoPage {
  armEcho(selector: string, key: string): void;
  echoDrawn(): Promise<number>;
  openReferenceEcho(url: string): Promise<void>;
  termEchoText(selector: string): string;
}
const inPage = (page: Page) => ({
  arm: (selector: string, key: string) =>
    page.evaluate(([s, k]) => (globalThis as unknown as EchoPage).armEcho(s, k), [selector, key] as const),
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

interface PathResult {
  terminalMs: number[];
  echoMs: number[];
}

/** Pairs a phone-sized page at `appOrigin`, opens a terminal session and times keys there against the echo at `echoUrl`. */
async function measurePath(
  browser: Browser,
  appOrigin: string,
  code: string,
  echoUrl: string,
  settings: { keysPerRound: number; rounds: number },
  progress: (line: string) => void,
): Promise<PathResult> {
  const context = await browser.newContext({ ...PHONE_CONTEXT, bypassCSP: true });
  try {
    const page = await context.newPage();
    await pairThroughLink(page, appOrigin, code);
    await page.getByLabel('Agent').first().selectOption('terminal');
    await page.getByRole('button', { name: 'New session' }).first().click();
    await page.locator('[data-terminal-phase="live"]').waitFor({ timeout: WAIT_MS });
    await injectPageModule(page, 'termEcho.page.ts');
    const probe = inPage(page);
    await waitUntil(async () => /[$#]$/.test(await probe.text(ROWS)), 'the prompt', WAIT_MS);
    await page.evaluate((url) => (globalThis as unknown as EchoPage).openReferenceEcho(url), echoUrl);
    const terminal = () => timedKeys(page, '.xterm-helper-textarea', ROWS, settings.keysPerRound, true);
    const plain = () => timedKeys(page, '#bench-echo-input', SPAN, settings.keysPerRound, false);
    progress('   warm-up (untimed)');
    await terminal();
    await plain();
    const results = await rotateRounds(
      settings.rounds,
      { terminal, echo: plain },
      progress,
      (s) => `median ${median(s).toFixed(2)} ms, p95 ${percentile(s, 0.95).toFixed(2)} ms`,
    );
    return { terminalMs: results.terminal.flat(), echoMs: results.echo.flat() };
  } finally {
    await context.close();
  }
}

async function direct(
  settings: { keysPerRound: number; rounds: number },
  echoUrl: string,
  progress: (line: string) => void,
): Promise<PathResult> {
  const runtime = await startRuntimeProcess({ env: terminalTestEnv() });
  const browser = await launchChromium();
  try {
    return await measurePath(browser, runtime.appOrigin, startupPairingCode(runtime), echoUrl, settings, progress);
  } finally {
    await browser.close();
    await runtime.stop();
  }
}

async function throughRelay(
  settings: { keysPerRound: number; rounds: number },
  echoUrl: string,
  progress: (line: string) => void,
): Promise<PathResult> {
  const relay = await startPassthroughAssembly({ runtimeEnv: terminalTestEnv() });
  try {
    await waitForCertificate(relay, CERTIFICATE_MS);
    const code = new URLSearchParams(new URL(relay.printedLink).hash.slice(1)).get('code') ?? '';
    return await measurePath(relay.browser, relay.appOrigin, code, echoUrl, settings, progress);
  } finally {
    await relay.stop();
  }
}

const comparisons = (path: string, oursName: string, result: PathResult): Comparison[] =>
  (['median', 'p95'] as const).map((stat) => ({
    rule: 'TERM-4',
    label: `keystroke to the drawn echo at 390x844, ${path}, ${stat}`,
    unit: 'ms' as const,
    better: 'lower' as const,
    oursName,
    referenceName: '1-byte WebSocket echo on loopback into a bare span, next frame',
    ours: percentile(result.terminalMs, stat === 'median' ? 0.5 : 0.95),
    reference: percentile(result.echoMs, stat === 'median' ? 0.5 : 0.95),
    target: null,
  }));

export const termEchoPhone: Benchmark = {
  name: 'term-echo-phone',
  async run(progress): Promise<BenchOutcome> {
    // HBCODE_BENCH_BYTES sets the keystrokes per round here.
    const { totalBytes: keysPerRound, rounds, overridden } = benchSettings(100, 4);
    const settings = { keysPerRound, rounds };
    const echo = await startEchoServer();
    try {
      progress('TERM-4 in the page, directly');
      const directly = await direct(settings, echo.url, progress);
      progress('TERM-4 in the page, through the relay');
      const relayed = await throughRelay(settings, echo.url, progress);
      return {
        comparisons: [
          ...comparisons('directly', 'keydown → app socket → PTY → bash → xterm.js rows, next frame', directly),
          ...comparisons(
            'through the relay',
            'the same through the TLS passthrough (balancer, relay node 2, node 1, the desktop link)',
            relayed,
          ),
        ],
        parameters: { rounds, keysPerRound, overridden, viewport: '390x844' },
        measurements: { direct: directly, relay: relayed },
        notes: [
          "Both are timed inside the page: performance.now() in a capturing keydown listener, until a MutationObserver sees the echoed character in the element's text and a requestAnimationFrame callback after it runs (the frame that draws it begins). Chrome DevTools Protocol's own key dispatch is outside the span.",
          'The terminal key is erased with Backspace after each sample (untimed), so every key lands on the same empty prompt line.',
          "The echo server runs in a Node process of its own on loopback, as the runtime does. Through the relay, the reference still goes straight to it on loopback (not through the relay's hops), from the same page loaded from the relay name.",
          "The relay path: a pebble certificate, a TCP balancer in front of the nodes' TLS ports, node 2 (where the phone lands) and node 1 (which holds the desktop's link), two relay nodes on one nats-server, all on loopback.",
        ],
      };
    } finally {
      echo.close();
    }
  },
};
