import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as InPage from './timelineInPage';
import { connectChromium } from '../fixtures/sharedChromium';
import { TEST_TOKEN } from '../fixtures/runtimeProcess';
import { writeHistory } from '../fixtures/scriptedAgent';
import {
  createScriptedSession,
  longHistory,
  startScriptedRuntime,
  type ScriptedRuntime,
} from '../fixtures/scriptedAgentSessions';
import { addModuleToPage } from './moduleInPage';

// TL-4 in real Chromium against the real runtime: a long history opens at its newest rows, older
// pages load on demand, and with the runtime stopped the pages read are shown from IndexedDB.

const ITEMS = 2_100;
const PAGE = 200;

declare global {
  // The bundle of timelineInPage.ts, as the page sees it.
  var timelineInPage: typeof InPage;
  var timelineClient: InstanceType<typeof InPage.RpcClient>;
}

interface Seen {
  ids: string[];
  offline: boolean;
  hasOlder: boolean;
  error: string | null;
}

/** Opens a store in the page (over the page's client) and reads `older` pages: answers what it showed after each step. */
function openAndPage(page: Page, sessionId: string, older: number): Promise<Seen[]> {
  return page.evaluate(
    async ({ sessionId, older, pageSize }) => {
      const store = new globalThis.timelineInPage.TimelineStore({
        client: globalThis.timelineClient,
        sessionId,
        parentItemId: null,
        pageSize,
      });
      const seen = () => {
        const s = store.getSnapshot();
        return { ids: s.rows.map((row) => row.id), offline: s.offline, hasOlder: s.hasOlder, error: s.error };
      };
      await store.open();
      const steps = [seen()];
      for (let n = 0; n < older && store.getSnapshot().hasOlder; n++) {
        await store.loadOlder();
        steps.push(seen());
      }
      store.close();
      return steps;
    },
    { sessionId, older, pageSize: PAGE },
  );
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, n) => `i:h${from + n}`);

describe('TL-4 paged timeline in Chromium', () => {
  let browser: Browser;
  let context: BrowserContext | undefined;
  let scripted: ScriptedRuntime | undefined;

  beforeAll(async () => {
    browser = await connectChromium();
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await scripted?.runtime.stopIfRunning();
    scripted?.remove();
  });

  it('TL-4 a long history opens at its newest rows, pages back to the first, and the pages read are shown offline', async () => {
    scripted = await startScriptedRuntime();
    const node = await scripted.runtime.connect();
    const sessionId = await createScriptedSession(node);
    node.close();
    writeHistory(scripted.historyDir, sessionId, null, longHistory(ITEMS));

    // A plain page of the runtime's own origin: the app's origin, whose sockets the runtime accepts.
    context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${scripted.runtime.appOrigin}/healthz`);
    await addModuleToPage(page, 'tests/e2e/timelineInPage.ts', 'timelineInPage');
    await page.evaluate(
      async ({ url, token }) => {
        const { RpcClient, PROTOCOL_VERSION } = globalThis.timelineInPage;
        globalThis.timelineClient = new RpcClient(new WebSocket(url));
        await globalThis.timelineClient.opened;
        await globalThis.timelineClient.call('auth.hello', { token, protocolVersion: PROTOCOL_VERSION });
      },
      { url: `ws://${scripted.runtime.appHost}/rpc`, token: TEST_TOKEN },
    );

    // Online: the newest page first, then three older pages, then on to the first item.
    const online = await openAndPage(page, sessionId, 100);
    expect(online[0]).toEqual({ ids: range(ITEMS - PAGE, ITEMS), offline: false, hasOlder: true, error: null });
    expect(online[3]!.ids).toEqual(range(ITEMS - 4 * PAGE, ITEMS));
    expect(online.at(-1)).toEqual({ ids: range(0, ITEMS), offline: false, hasOlder: false, error: null });

    // Offline: the runtime is gone; the same pages come from this device, following the same cursors.
    await scripted.runtime.stop();
    await page.waitForFunction(() => globalThis.timelineClient.isClosed);
    const offline = await openAndPage(page, sessionId, 100);
    expect(offline[0]).toEqual({ ids: range(ITEMS - PAGE, ITEMS), offline: true, hasOlder: true, error: null });
    expect(offline.at(-1)).toEqual({ ids: range(0, ITEMS), offline: true, hasOlder: false, error: null });
  }, 240_000);
});
