/**
 * TL-4's price of a long history in the app itself: in Chromium at phone size (390x844), the real
 * app is reloaded on a session of 5,000 saved items and on one of 50, and timed from the start of
 * the page's navigation until the first rows of the timeline are drawn (a row with its body in
 * the DOM, then the next animation frame). Two ways, side by side in one run:
 *
 *   cache:   the runtime does not answer (the app's socket is closed as it opens, as offline), so
 *            the rows come from the pages this device kept in IndexedDB;
 *   runtime: the socket goes through to the runtime, whose agent is the tests' scripted double.
 *
 * Each ratio is the 5,000-item session's median over the 50-item session's; TL-4's target is 1.5×.
 */
import type { BrowserContext, Page, WebSocketRoute } from 'playwright-core';
import type { RpcClient } from '../../lib/client/rpcClient';
import { launchChromium } from '../../tests/fixtures/browser';
import { writeHistory } from '../../tests/fixtures/scriptedAgent';
import { createScriptedSession, longHistory, startScriptedRuntime } from '../../tests/fixtures/scriptedAgentSessions';
import { PHONE_CONTEXT, pairThroughLink, startupPairingCode } from '../../tests/e2e/appHarness';
import { benchSettings, type Benchmark, type BenchOutcome } from '../lib/report';
import { median, rotateRounds } from '../lib/rounds';

const LONG = 5_000;
const SHORT = 50;
const TARGET = 1.5;

type Source = 'cache' | 'runtime';

declare global {
  /** ms since navigation start when the first timeline rows were drawn, wherever from; set by FIRST_ROWS_PROBE. */
  var __firstRowsAt: number | undefined;
  /** The same for the first rows drawn from the runtime's answer (no "Saved …" note above them). */
  var __runtimeRowsAt: number | undefined;
}

/**
 * Runs in every page before the app: watches the DOM from the first byte and notes the frame
 * after a timeline row is shown with its body (\`data-pending\` marks a row still waiting for it),
 * and the frame after such rows are shown without the note that they are this device's copy.
 */
const FIRST_ROWS_PROBE = `(() => {
  const shown = () => document.querySelector('[data-testid="timeline"] .timeline-item:not([data-pending])') !== null;
  const saved = () => document.querySelector('.timeline-saved') !== null;
  const observer = new MutationObserver(() => {
    if (!shown()) return;
    if (globalThis.__firstRowsAt === undefined) requestAnimationFrame(() => { globalThis.__firstRowsAt ??= performance.now(); });
    if (!saved()) {
      observer.disconnect();
      requestAnimationFrame(() => { globalThis.__runtimeRowsAt ??= performance.now(); });
    }
  });
  observer.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-pending'] });
})();`;

/** The newest item of `longHistory(count)` that is an agent item row (`i:h…`), whatever the count. */
function newestItemRowId(count: number): string {
  for (let n = count - 1; n >= 0; n--) if (n % 7 !== 0 && n % 7 !== 3) return `i:h${n}`;
  throw new Error('no item row');
}

interface Rig {
  appOrigin: string;
  page: Page;
  context: BrowserContext;
  source: Source;
}

/** Reloads the app on a session and answers the ms from navigation start to its first rows drawn. */
async function reloadToFirstRows(rig: Rig, source: Source, sessionId: string, newestRowId: string): Promise<number> {
  rig.source = source;
  // The same document at the session's address, then the reload the time is taken of.
  await rig.page.goto(`${rig.appOrigin}/#/?session=${encodeURIComponent(sessionId)}`);
  await rig.page.reload();
  // Offline the first rows are the saved ones; online the app may show its saved copy before the
  // runtime answers (TL-4), so the runtime's time is that of the first rows without the note.
  const at = await rig.page.waitForFunction(
    (source) => (source === 'cache' ? globalThis.__firstRowsAt : globalThis.__runtimeRowsAt),
    source,
    { timeout: 60_000 },
  );
  // The rows drawn are that session's newest, and from where the bench says they came.
  await rig.page
    .locator(`.timeline-item[data-row-id="${newestRowId}"]`)
    .waitFor({ state: 'attached', timeout: 60_000 });
  const savedNote = await rig.page.locator('.timeline-saved').count();
  if ((source === 'cache') !== savedNote > 0)
    throw new Error(
      `from the ${source} the timeline ${savedNote > 0 ? 'says' : 'does not say'} it shows this device's saved rows`,
    );
  return (await at.jsonValue()) as number;
}

export const tlOpenReload: Benchmark = {
  name: 'tl-open-reload',
  async run(progress): Promise<BenchOutcome> {
    const { rounds } = benchSettings(1, 7);
    const scripted = await startScriptedRuntime();
    let client: RpcClient | null = null;
    const browser = await launchChromium();
    try {
      client = await scripted.runtime.connect();
      const long = await createScriptedSession(client);
      const short = await createScriptedSession(client);
      writeHistory(scripted.historyDir, long, null, longHistory(LONG));
      writeHistory(scripted.historyDir, short, null, longHistory(SHORT));

      const context = await browser.newContext(PHONE_CONTEXT);
      await context.addInitScript(FIRST_ROWS_PROBE);
      const page = await context.newPage();
      const rig: Rig = { appOrigin: scripted.runtime.appOrigin, page, context, source: 'runtime' };
      // Every socket of the page goes through here: to the runtime, or closed as it opens (offline).
      await page.routeWebSocket(/\/rpc$/, (ws: WebSocketRoute) => {
        if (rig.source === 'runtime') ws.connectToServer();
        else void ws.close();
      });
      await pairThroughLink(page, scripted.runtime.appOrigin, startupPairingCode(scripted.runtime));

      const sessions = {
        long: { id: long, newest: newestItemRowId(LONG) },
        short: { id: short, newest: newestItemRowId(SHORT) },
      };
      // Warm: each session read once from the runtime (its first page kept on this device, the
      // agent's file in its memory) and once from the cache; neither contender gets a cold start.
      for (const source of ['runtime', 'cache', 'runtime'] as const) {
        for (const s of Object.values(sessions)) await reloadToFirstRows(rig, source, s.id, s.newest);
      }
      progress(`   ${rounds} rounds of four reloads at phone size`);
      const timed = await rotateRounds(
        rounds,
        {
          cacheLong: () => reloadToFirstRows(rig, 'cache', sessions.long.id, sessions.long.newest),
          cacheShort: () => reloadToFirstRows(rig, 'cache', sessions.short.id, sessions.short.newest),
          runtimeLong: () => reloadToFirstRows(rig, 'runtime', sessions.long.id, sessions.long.newest),
          runtimeShort: () => reloadToFirstRows(rig, 'runtime', sessions.short.id, sessions.short.newest),
        },
        progress,
        (ms) => `${ms.toFixed(0)} ms`,
      );
      await context.close();
      const line = (source: Source, ours: number[], reference: number[]) => ({
        rule: 'TL-4',
        label: `reload until the first rows are drawn, ${source === 'cache' ? "from the app's IndexedDB (runtime silent)" : 'from the runtime'} (median)`,
        unit: 'ms' as const,
        better: 'lower' as const,
        oursName: `${LONG}-item session`,
        referenceName: `${SHORT}-item session`,
        ours: median(ours),
        reference: median(reference),
        target: TARGET,
      });
      return {
        comparisons: [
          line('cache', timed.cacheLong, timed.cacheShort),
          line('runtime', timed.runtimeLong, timed.runtimeShort),
        ],
        parameters: { longItems: LONG, shortItems: SHORT, rounds, viewport: PHONE_CONTEXT.viewport },
        measurements: { ...timed },
        notes: [
          'Each time runs from the navigation start of a reload (performance.now() in the page) to the animation frame after the first timeline row with its body is in the DOM; it includes loading the app itself, the same for both sessions.',
          "Offline, the page's WebSocket is closed as it opens (Playwright's routeWebSocket); online it is passed through to the runtime by the same route, so both sources pay the same proxy.",
        ],
      };
    } finally {
      client?.close();
      await browser.close();
      await scripted.runtime.stop();
      scripted.remove();
    }
  },
};
