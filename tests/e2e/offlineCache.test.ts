import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as OutputCache from '../../lib/client/output/outputCache';
import type * as SavedRecords from './savedRecordsEntry';
import type { AppDbSchema } from '../../lib/client/appDb';
import { connectChromium } from '../fixtures/sharedChromium';
import { startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import { loadModuleInBlankPage } from './moduleInPage';
import {
  clickOutputControl,
  commandRow,
  createShellSession,
  pairUnderServiceWorker,
  sendCommand,
  waitCommandFinished,
} from './appHarness';
import { waitUntil } from '../fixtures/waitUntil';

// PWA-3 in real Chromium against the real runtime: what was read once is read again from
// IndexedDB after the runtime stopped and the page reloaded (the service worker serves the app).

/** 60 000 lines of 19 bytes: 1.09 MiB, five 256 KiB pages (13 797 lines a page). */
const LINES = 60_000;
const OUTPUT_BYTES = LINES * 19;
const COMMAND = `seq -f 'output line %06g' 1 ${LINES}`;
const line = (n: number) => `output line ${String(n).padStart(6, '0')}`;

type Saved = { [S in 'outputPages' | 'snapshots' | 'timelinePages' | 'cacheUsage']: AppDbSchema[S]['value'][] };

/** Everything the app saved for offline reading, read from its database in the page. */
function readSaved(page: Page): Promise<Saved> {
  return page.evaluate(
    () =>
      new Promise<Saved>((resolve, reject) => {
        const open = indexedDB.open('hbcode');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const tx = db.transaction(['outputPages', 'snapshots', 'timelinePages', 'cacheUsage']);
          const all = (name: string) => tx.objectStore(name).getAll();
          const requests = {
            outputPages: all('outputPages'),
            snapshots: all('snapshots'),
            timelinePages: all('timelinePages'),
            cacheUsage: all('cacheUsage'),
          };
          tx.onerror = () => reject(tx.error);
          tx.oncomplete = () => {
            db.close();
            resolve({
              outputPages: requests.outputPages.result,
              snapshots: requests.snapshots.result,
              timelinePages: requests.timelinePages.result,
              cacheUsage: requests.cacheUsage.result,
            });
          };
        };
      }),
  );
}

/** Scrolls the output viewer to its end until `text` is on screen (each scroll may read a page). */
async function scrollOutputUntil(page: Page, text: string): Promise<void> {
  const target = page.getByText(text, { exact: true });
  for (let i = 0; i < 100 && !(await target.isVisible()); i++) {
    await page.getByTestId('output').evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    await page.waitForTimeout(150);
  }
  await target.waitFor({ timeout: 5_000 });
}

describe('PWA-3 read cache in Chromium', () => {
  let browser: Browser;
  let runtime: RuntimeProcess | undefined;

  beforeAll(async () => {
    browser = await connectChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await runtime?.stopIfRunning();
  });

  it('PWA-3 output pages, the session list and a timeline read once are shown again after a reload with the runtime stopped, marked offline', async () => {
    runtime = await startRuntimeProcess();
    const context = await browser.newContext();
    const page = await context.newPage();

    await pairUnderServiceWorker(page, runtime);
    expect(await page.getByTestId('offline-banner').count()).toBe(0);

    // Run a command with a five-page output and read all of it.
    await createShellSession(page);
    const sessionTitle = ((await page.getByRole('heading', { level: 2 }).textContent()) ?? '').trim();
    expect(sessionTitle).not.toBe('');
    await sendCommand(page, COMMAND);
    expect(await waitCommandFinished(page, COMMAND)).toBe('exit 0');
    await commandRow(page, COMMAND).click();
    // It opens at its end (UX-1); read it all from its first line.
    await clickOutputControl(page, 'Start');
    await page.getByText(line(1), { exact: true }).waitFor();
    await scrollOutputUntil(page, line(LINES));

    // Saved: five final pages, the running total, the finished command's timeline, the list.
    await page.getByRole('button', { name: 'Back to timeline' }).click();
    await page.getByRole('button', { name: 'Back to sessions' }).click();
    const sessionButton = page.locator('button.list-button').filter({ hasText: sessionTitle });
    await sessionButton.waitFor();
    let saved: Saved | undefined;
    await waitUntil(async () => {
      saved = await readSaved(page);
      // The timeline is kept as the pages read (TL-4).
      const timelineRows = saved.timelinePages.flatMap((p) => p.rows);
      const list = saved.snapshots.find((s) => s.key === 'sessions');
      return (
        saved.outputPages.length === 5 &&
        timelineRows.some((r) => r.kind === 'command' && r.status === 'exited' && r.byteLength === OUTPUT_BYTES) &&
        (list?.sessions ?? []).some((s) => s.title === sessionTitle)
      );
    }, 'the output pages, the timeline and the session list are saved');
    expect(saved!.outputPages.map((p) => p.offset).sort((a, b) => a - b)).toEqual(
      [0, 1, 2, 3, 4].map((n) => n * 262_144),
    );
    expect(saved!.outputPages.reduce((sum, p) => sum + p.byteLength, 0)).toBe(OUTPUT_BYTES);
    expect(saved!.cacheUsage.filter((u) => u.key === 'outputPages')).toEqual([
      { key: 'outputPages', bytes: OUTPUT_BYTES },
    ]);

    // The runtime stops; the page reloads from the service worker and shows what it saved.
    expect(await runtime.stop()).toBe(0);
    await page.reload();
    await page.getByTestId('offline-banner').waitFor();
    expect(await page.getByTestId('offline-banner').textContent()).toBe('Offline — showing what this device saved');
    expect(await page.getByText('Connected', { exact: true }).count()).toBe(0);
    await sessionButton.click();
    expect(await waitCommandFinished(page, COMMAND)).toBe('exit 0');
    expect(await page.getByText(/^Saved /).count()).toBe(1);
    await commandRow(page, COMMAND).click();
    // Offline it opens at its end too, from the saved last page; then the whole output from its start.
    await page.getByText(line(LINES), { exact: true }).waitFor();
    await clickOutputControl(page, 'Start');
    await page.getByText(line(1), { exact: true }).waitFor();
    // Down to the last line of the fifth page, then back into the second.
    await scrollOutputUntil(page, line(LINES));
    // Back to the start, then down to a line of the second page: the viewer holds a window of
    // pages and, from the start, its first two pages; lines are one height without wrapping.
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.getByText(line(1), { exact: true }).waitFor();
    await page.getByTestId('output').evaluate((el, index) => {
      const first = el.querySelector('[data-offset]')!;
      el.scrollTop = index * first.getBoundingClientRect().height;
    }, 20_000 - 10);
    await page.getByText(line(20_000), { exact: true }).waitFor({ timeout: 5_000 });
    expect(await page.getByText('was not saved on this device').count()).toBe(0);
    // Find reads whole saved pages, so it searches offline too: forward into the last page, back into the first.
    const find = page.getByLabel('Find in output');
    const marked = page.locator('[data-testid="output"] mark');
    await find.fill(line(LINES - 2));
    await find.press('Enter');
    await waitUntil(
      async () => (await marked.allTextContents()).includes(line(LINES - 2)),
      'find reaches the last page offline',
    );
    await find.fill(line(3));
    await find.press('Shift+Enter');
    await waitUntil(
      async () => (await marked.allTextContents()).includes(line(3)),
      'find goes back to the first page offline',
    );
    expect(await page.getByText('was not saved on this device').count()).toBe(0);
    expect(await page.getByTestId('offline-banner').isVisible()).toBe(true);
    await context.close();
  }, 120_000);

  it('PWA-3 the page cache stays within its bound, evicting the least recently used page, and never serves another generation', async () => {
    // The real module, bundled for the page; a routed origin gives it an IndexedDB of its own.
    const { context, page } = await loadModuleInBlankPage(
      browser,
      'lib/client/output/outputCache.ts',
      'hbOutputCache',
      'http://cache-test.localhost',
    );

    const result = await page.evaluate(async () => {
      const { saveOutputPage, readCachedOutputPage, outputCacheBytes } = (
        globalThis as unknown as { hbOutputCache: typeof OutputCache }
      ).hbOutputCache;
      const ref = (n: number, generation = 0) => ({ source: 's:r:c', generation, offset: n * 1000 });
      const bytes = (n: number, size = 1000) => new Uint8Array(size).fill(n);
      const bound = { maxBytes: 3000 };
      const held = async (pages: number[]) => {
        const out: boolean[] = [];
        for (const n of pages) out.push((await readCachedOutputPage(ref(n), 1000)) !== null);
        return out;
      };
      for (const n of [0, 1, 2]) await saveOutputPage(ref(n), bytes(n), bound);
      const full = await outputCacheBytes();
      const first = await readCachedOutputPage(ref(0), 1000); // page 0 becomes the most recent
      await saveOutputPage(ref(3), bytes(3), bound); // over the bound: page 1 goes
      const afterOne = await held([0, 1, 2, 3]); // reading marks 0, 2, 3 used, in that order
      await saveOutputPage(ref(4), bytes(4, 2000), bound); // 2000 bytes: the two oldest go (0, 2)
      const afterTwo = await held([0, 1, 2, 3, 4]);
      const otherGeneration = await readCachedOutputPage(ref(3, 1), 1000);
      const longerThanSaved = await readCachedOutputPage(ref(3), 1001);
      await saveOutputPage(ref(9), bytes(9, 4000), bound); // larger than the whole bound: not kept
      return {
        full,
        firstBytes: first ? [first.length, first[999]] : null,
        afterOne,
        afterTwo,
        bytes: await outputCacheBytes(),
        otherGeneration,
        longerThanSaved,
        tooLarge: await readCachedOutputPage(ref(9), 1),
      };
    });
    expect(result).toEqual({
      full: 3000,
      firstBytes: [1000, 0],
      afterOne: [true, false, true, true],
      afterTwo: [false, false, false, true, true],
      bytes: 3000,
      otherGeneration: null,
      longerThanSaved: null,
      tooLarge: null,
    });
    await context.close();
  });

  it('PWA-8 a saved record that fails its schema is read as not held: a cached page is deleted and its bytes leave the total; a bad snapshot or pairing reads as none, a bad unsent message is kept but not sent', async () => {
    const { context, page } = await loadModuleInBlankPage(
      browser,
      'tests/e2e/savedRecordsEntry.ts',
      'hbSaved',
      'http://records-test.localhost',
    );
    const warnings: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'warning') warnings.push(message.text());
    });
    const result = await page.evaluate(async () => {
      const saved = (globalThis as unknown as { hbSaved: typeof SavedRecords }).hbSaved;
      /** Rewrites every record of `store` matching `pick` with `change`, as a damaged or older device might have. */
      const damage = (
        store: string,
        pick: (record: Record<string, unknown>) => boolean,
        change: (record: Record<string, unknown>) => unknown,
        key?: string,
      ) =>
        new Promise<void>((resolve, reject) => {
          const open = indexedDB.open('hbcode');
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const tx = open.result.transaction(store, 'readwrite');
            const request = tx.objectStore(store).openCursor();
            request.onsuccess = () => {
              const cursor = request.result;
              if (!cursor) return;
              if (pick(cursor.value as Record<string, unknown>)) {
                if (key === undefined) cursor.update(change(cursor.value as Record<string, unknown>));
                else tx.objectStore(store).put(change(cursor.value as Record<string, unknown>), key);
              }
              cursor.continue();
            };
            tx.oncomplete = () => {
              open.result.close();
              resolve();
            };
            tx.onerror = () => reject(tx.error);
          };
        });
      const ref = (offset: number) => ({ source: 's:r:c', generation: 1, offset });
      await saved.saveOutputPage(ref(0), new Uint8Array(1000).fill(7));
      await saved.saveOutputPage(ref(1000), new Uint8Array(1000).fill(8));
      await saved.saveSessionsSnapshot([], []);
      await saved.savePairing({ token: 't', deviceId: 'd', deviceName: 'phone', pairedAt: 1 });
      const before = {
        bytes: await saved.outputCacheBytes(),
        sessions: await saved.readSessionsSnapshot(),
        pairing: await saved.loadPairing(),
      };

      await damage(
        'outputPages',
        (record) => record.offset === 0,
        (record) => ({ ...record, bytes: 'not bytes' }),
      );
      await damage(
        'snapshots',
        (record) => record.key === 'sessions',
        (record) => ({ ...record, sessions: [{ id: 5 }] }),
      );
      await damage(
        'settings',
        () => true,
        (record) => ({ ...record, token: 42 }),
        'device',
      );
      const view = (title: string) => ({
        markdown: `# ${title}`,
        view: 'article' as const,
        articleFound: true,
        title,
        byline: null,
        siteName: null,
        publishedTime: null,
        sourceUrl: `https://example.org/${title}`,
      });
      for (const title of ['kept', 'damaged'])
        await saved.saveReaderPage({
          url: `https://example.org/${title}`,
          finalUrl: `https://example.org/${title}`,
          views: { article: view(title) },
          preferred: 'article',
        });
      await damage(
        'readerPages',
        (record) => record.url === 'https://example.org/damaged',
        (record) => ({ ...record, views: null }),
      );
      const readerList = (await saved.listSavedReaderPages()).map((page) => page.title);
      const first = await saved.enqueueMessage('s1', 'first unsent message');
      await saved.enqueueMessage('s1', 'second unsent message');
      await damage(
        'outbox',
        (record) => record.operationId === first.operationId,
        (record) => ({ ...record, text: 5 }),
      );
      const outbox = (await saved.sessionOutbox('s1')).map((entry) => entry.text);
      const outboxStored = await new Promise<number>((resolve, reject) => {
        const open = indexedDB.open('hbcode');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const count = open.result.transaction('outbox').objectStore('outbox').count();
          count.onsuccess = () => {
            open.result.close();
            resolve(count.result);
          };
        };
      });
      const damaged = await saved.readCachedOutputPage(ref(0), 1000);
      const kept = await saved.readCachedOutputPage(ref(1000), 1000);
      return {
        before: {
          bytes: before.bytes,
          sessions: before.sessions?.value ?? null,
          paired: before.pairing?.deviceId ?? null,
        },
        damaged,
        kept: kept ? [kept.length, kept[0]] : null,
        bytesAfter: await saved.outputCacheBytes(),
        damagedAgain: await saved.readCachedOutputPage(ref(0), 1000),
        sessions: await saved.readSessionsSnapshot(),
        pairing: (await saved.loadPairing()) ?? null,
        outbox,
        outboxStored,
        readerList,
      };
    });
    expect(result).toEqual({
      before: { bytes: 2000, sessions: { projects: [], sessions: [] }, paired: 'd' },
      damaged: null,
      kept: [1000, 8],
      bytesAfter: 1000,
      damagedAgain: null,
      sessions: null,
      pairing: null,
      // The damaged message is neither shown nor sent, and not deleted either.
      outbox: ['second unsent message'],
      outboxStored: 2,
      // A damaged saved page leaves the list of saved pages; the list itself still comes.
      readerList: ['kept'],
    });
    for (const store of ['outputPages', 'snapshots', 'settings', 'outbox', 'readerPages'])
      expect(
        warnings.some((text) => text.includes(`saved record in ${store} that does not match its schema`)),
        store,
      ).toBe(true);
    await context.close();
  });
});
