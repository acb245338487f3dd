import type { Browser, BrowserContext, Page, WebSocketRoute } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { CommandRow, MessageRow, TimelineRow } from '../../lib/protocol/rows';
import { connectChromium } from '../fixtures/sharedChromium';
import { makeRuntimeDirs, type RuntimeDirs } from '../fixtures/runtimeDirs';
import { freePort, startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import { waitUntil } from '../fixtures/waitUntil';

// PWA-4 in real Chromium against the real runtime process: messages typed in the app live in
// IndexedDB until the runtime confirms them, and reach the runtime exactly once (STO-2, STO-3)
// across a stopped runtime, a reload, a crash in the middle of a send and a closed tab.

/** An outbox entry as stored in IndexedDB (lib/client/appDb.ts), read back by the test. */
interface StoredEntry {
  operationId: string;
  sessionId: string;
  text: string;
  seq: number;
  state: string;
  attempts: number;
  error?: string;
  runId?: string;
  claimedBy?: string;
  claimedUntil?: number;
  sentAt?: number;
}

/** A page's socket to /rpc passes through the test, which can cut or silence it (see routeRpc). */
interface AppTab {
  name: string;
  page: Page;
  /** While true, every socket the page opens is closed at once, as if the network were down. */
  offline: boolean;
  sockets: { page: WebSocketRoute; server: WebSocketRoute | null }[];
}

/**
 * Silences the socket that sends `chat.send` with `text`: the request reaches the runtime, but
 * nothing the runtime says afterwards reaches the page, as when a connection dies mid-send.
 */
interface SendTrap {
  text: string;
  caughtBy?: string;
  answer: Promise<{ operationId: string; runId: string }>;
  resolveAnswer: (answer: { operationId: string; runId: string }) => void;
}

function makeTrap(text: string): SendTrap {
  let resolveAnswer!: SendTrap['resolveAnswer'];
  const answer = new Promise<{ operationId: string; runId: string }>((resolve) => (resolveAnswer = resolve));
  return { text, answer, resolveAnswer };
}

let dirs: RuntimeDirs;
let port: number;
let runtime: RuntimeProcess | null = null;
let browser: Browser;
let context: BrowserContext;
let main: AppTab;
let trap: SendTrap | null = null;

async function startRuntime(): Promise<RuntimeProcess> {
  runtime = await startRuntimeProcess({ port, dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });
  return runtime;
}

function currentRuntime(): RuntimeProcess {
  if (!runtime) throw new Error('the runtime is not running');
  return runtime;
}

async function stopRuntime(): Promise<void> {
  await currentRuntime().stop();
  runtime = null;
}

async function killRuntime(): Promise<void> {
  await currentRuntime().kill();
  runtime = null;
}

/** The page re-renders and navigates while these checks run: an error only means "not yet". */
const poll = <T>(what: string, check: () => Promise<T>) =>
  waitUntil(check, what, { timeoutMs: 40_000, intervalMs: 100, retryErrors: true });

function routeRpc(tab: AppTab, ws: WebSocketRoute): void {
  if (tab.offline) {
    void ws.close({ code: 4000, reason: 'test: offline' });
    return;
  }
  const server = ws.connectToServer();
  const socket = { page: ws, server };
  tab.sockets.push(socket);
  let silencedRequest: unknown = null;
  ws.onMessage((message) => {
    if (trap && !trap.caughtBy && typeof message === 'string') {
      const frame = JSON.parse(message) as { id?: unknown; method?: unknown; params?: { text?: unknown } };
      if (frame.method === 'chat.send' && frame.params?.text === trap.text) {
        trap.caughtBy = tab.name;
        silencedRequest = frame.id;
      }
    }
    server.send(message);
  });
  server.onMessage((message) => {
    if (silencedRequest === null) {
      ws.send(message);
      return;
    }
    // The page hears nothing more on this socket; the test keeps the runtime's answer.
    const frame =
      typeof message === 'string'
        ? (JSON.parse(message) as { id?: unknown; result?: { operationId: string; runId: string } })
        : null;
    if (frame && frame.id === silencedRequest && frame.result) trap?.resolveAnswer(frame.result);
  });
}

async function openAppTab(name: string, url: string): Promise<AppTab> {
  const page = await context.newPage();
  page.setDefaultTimeout(40_000);
  const tab: AppTab = { name, page, offline: false, sockets: [] };
  await page.routeWebSocket(/\/rpc$/, (ws) => routeRpc(tab, ws));
  await page.goto(url);
  return tab;
}

/** Cuts the tab's sockets and refuses new ones until `goOnline`. */
function goOffline(tab: AppTab): void {
  tab.offline = true;
  for (const socket of tab.sockets.splice(0)) {
    void socket.server?.close().catch(() => {});
    void socket.page.close().catch(() => {});
  }
}

async function goOnline(tab: AppTab): Promise<void> {
  tab.offline = false;
  await nudge(tab);
}

/** "The network is back": the connection retries now instead of at its next backoff step. */
async function nudge(tab: AppTab): Promise<void> {
  await tab.page.evaluate(() => window.dispatchEvent(new Event('online')));
}

async function waitConnected(tab: AppTab): Promise<void> {
  await tab.page.locator('[data-connection="open"]').waitFor({ timeout: 40_000 });
}

async function waitDisconnected(tab: AppTab): Promise<void> {
  await tab.page.locator('[data-connection="open"]').waitFor({ state: 'detached', timeout: 40_000 });
}

/** The app's service worker must control the page before the runtime stops (PWA-1). */
async function waitForServiceWorkerControl(tab: AppTab): Promise<void> {
  await tab.page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  const controlled = () => tab.page.evaluate(() => navigator.serviceWorker.controller !== null);
  if (!(await controlled())) {
    await tab.page.reload();
    await waitConnected(tab);
  }
  expect(await controlled()).toBe(true);
}

function readOutbox(tab: AppTab): Promise<StoredEntry[]> {
  return tab.page.evaluate(
    () =>
      new Promise<StoredEntry[]>((resolve, reject) => {
        const open = indexedDB.open('hbcode');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const request = db.transaction('outbox').objectStore('outbox').getAll();
          request.onsuccess = () => {
            db.close();
            resolve((request.result as StoredEntry[]).sort((a, b) => a.seq - b.seq));
          };
          request.onerror = () => reject(request.error);
        };
      }),
  );
}

async function sessionOutbox(tab: AppTab, sessionId: string): Promise<StoredEntry[]> {
  return (await readOutbox(tab)).filter((entry) => entry.sessionId === sessionId);
}

async function waitAllSent(tab: AppTab, sessionId: string, count: number): Promise<StoredEntry[]> {
  return poll(`${count} sent outbox entries`, async () => {
    const entries = await sessionOutbox(tab, sessionId);
    return entries.length === count && entries.every((entry) => entry.state === 'sent') && entries;
  });
}

async function withObserver<T>(use: (client: RpcClient) => Promise<T>): Promise<T> {
  const client = await currentRuntime().connect();
  try {
    return await use(client);
  } finally {
    client.close();
  }
}

const messageRows = (rows: TimelineRow[]) => rows.filter((row): row is MessageRow => row.kind === 'message');
const commandRows = (rows: TimelineRow[]) => rows.filter((row): row is CommandRow => row.kind === 'command');

/** The session's timeline once every command of it has finished. */
function settledTimeline(sessionId: string, commandCount: number): Promise<TimelineRow[]> {
  return withObserver((client) =>
    poll(`${commandCount} finished commands`, async () => {
      const { rows } = await client.call('sessions.timeline', { sessionId });
      const commands = commandRows(rows);
      return (
        commands.length >= commandCount && commands.every((row) => row.status !== 'running' && row.complete) && rows
      );
    }),
  );
}

/** Creates a shell session with the app's "New session" button; returns its id. */
async function openNewSession(tab: AppTab): Promise<string> {
  const back = tab.page.getByRole('button', { name: 'Back to sessions' });
  if ((await back.count()) > 0) await back.click();
  await tab.page.getByRole('button', { name: 'New session' }).first().click();
  await tab.page.getByLabel('Message', { exact: true }).waitFor();
  // The open session is in the app's address (UX-1); the list's order is by activity, not creation.
  return poll('the new session in the address', async () =>
    new URLSearchParams(new URL(tab.page.url()).hash.split('?')[1] ?? '').get('session'),
  );
}

async function sendFromComposer(tab: AppTab, text: string): Promise<void> {
  const box = tab.page.getByLabel('Message', { exact: true });
  await box.fill(text);
  await box.press('Enter');
  await poll('the composer to clear', async () => (await box.inputValue()) === '');
}

function shownEntries(tab: AppTab) {
  return tab.page.locator('[data-row="outbox"]');
}

async function shownStates(tab: AppTab): Promise<{ text: string; state: string | null; label: string }[]> {
  return shownEntries(tab).evaluateAll((items) =>
    items.map((item) => ({
      text: item.querySelector('.mono')?.textContent ?? '',
      state: item.getAttribute('data-outbox-state'),
      label: item.querySelector('.row span')?.textContent ?? '',
    })),
  );
}

/** Checks that each text reached the runtime once, in this order, and its command ran once. */
function expectDeliveredOnce(rows: TimelineRow[], texts: string[], entries: StoredEntry[]): void {
  const messages = messageRows(rows);
  expect(messages.map((row) => row.text)).toEqual(texts);
  expect(messages.map((row) => row.operationId)).toEqual(entries.map((entry) => entry.operationId));
  expect(messages.map((row) => row.runId)).toEqual(entries.map((entry) => entry.runId));
  const commands = commandRows(rows);
  expect(commands.map((row) => row.command)).toEqual(texts);
  expect(commands.map((row) => row.runId)).toEqual(messages.map((row) => row.runId));
  for (const command of commands)
    expect({ command: command.command, status: command.status, exitCode: command.exitCode }).toEqual({
      command: command.command,
      status: 'exited',
      exitCode: 0,
    });
}

beforeAll(async () => {
  dirs = makeRuntimeDirs();
  port = await freePort();
  await startRuntime();
  browser = await connectChromium();
  context = await browser.newContext();
  const code = /Pair a device \(code ([0-9A-Z]{5}-[0-9A-Z]{5})/.exec(currentRuntime().output())?.[1];
  if (!code) throw new Error(`no pairing code in the runtime's output:\n${currentRuntime().output()}`);
  main = await openAppTab('main', `${currentRuntime().appOrigin}/pair#code=${code}`);
  await main.page.getByRole('button', { name: 'Pair' }).click();
  await waitConnected(main);
  await waitForServiceWorkerControl(main);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (runtime) await runtime.stop();
  dirs?.remove();
});

describe('outbox in the browser', () => {
  test('PWA-4 STO-2 messages queued while the runtime is stopped show as queued, survive a reload, and are delivered once, in order', async () => {
    await waitConnected(main);
    const sessionId = await openNewSession(main);
    await stopRuntime();
    await waitDisconnected(main);

    const texts = ['echo one', 'echo two', 'echo three'];
    for (const text of texts) await sendFromComposer(main, text);
    await poll('three queued entries on screen', async () => (await shownEntries(main).count()) === 3);
    expect(await shownStates(main)).toEqual(texts.map((text) => ({ text, state: 'queued', label: 'Queued' })));

    // The app shell comes from the service worker; the outbox from IndexedDB.
    await main.page.reload();
    await main.page.locator('[data-connection]').waitFor();
    const kept = await sessionOutbox(main, sessionId);
    expect(kept.map((entry) => [entry.text, entry.state, entry.attempts])).toEqual(
      texts.map((text) => [text, 'queued', 0]),
    );
    expect(new Set(kept.map((entry) => entry.operationId)).size).toBe(3);

    await startRuntime();
    await nudge(main);
    await waitConnected(main);
    const sent = await waitAllSent(main, sessionId, 3);
    expect(sent.map((entry) => entry.operationId)).toEqual(kept.map((entry) => entry.operationId));
    expectDeliveredOnce(await settledTimeline(sessionId, 3), texts, sent);
  }, 180_000);

  test('PWA-4 STO-3 a send cut off by a runtime crash after the runtime accepted it is sent again and delivered once', async () => {
    await waitConnected(main);
    const sessionId = await openNewSession(main);
    trap = makeTrap('echo accepted before the crash');
    await sendFromComposer(main, trap.text);
    const firstAnswer = await trap.answer;
    expect(trap.caughtBy).toBe('main');
    // The runtime ran it; the page never heard back.
    await settledTimeline(sessionId, 1);
    await poll('the entry shown as sending', async () =>
      (await shownStates(main)).some((entry) => entry.state === 'sending' && entry.label === 'Sending…'),
    );

    await killRuntime();
    await poll('the entry back in line', async () =>
      (await shownStates(main)).some((entry) => entry.state === 'queued' && entry.label === 'Queued'),
    );
    await sendFromComposer(main, 'echo after the crash');
    trap = null;

    await startRuntime();
    await nudge(main);
    const sent = await waitAllSent(main, sessionId, 2);
    expect(sent.map((entry) => entry.attempts)).toEqual([2, 1]);
    expect(sent[0]!.runId).toBe(firstAnswer.runId);
    expectDeliveredOnce(
      await settledTimeline(sessionId, 2),
      ['echo accepted before the crash', 'echo after the crash'],
      sent,
    );
    await poll(
      'no outbox entries shown once the timeline has them',
      async () => (await shownEntries(main).count()) === 0,
    );
  }, 180_000);

  test('PWA-4 a send cut off by closing its tab is taken over by another open tab at once and delivered once', async () => {
    await waitConnected(main);
    // Only the tab that sends is connected while it sends.
    goOffline(main);
    await waitDisconnected(main);
    const sender = await openAppTab('sender', currentRuntime().appOrigin);
    await waitConnected(sender);
    const sessionId = await openNewSession(sender);
    trap = makeTrap('echo from a tab that closes');
    await sendFromComposer(sender, trap.text);
    const firstAnswer = await trap.answer;
    expect(trap.caughtBy).toBe('sender');
    await settledTimeline(sessionId, 1);
    const [claimed] = await sessionOutbox(sender, sessionId);
    expect(claimed).toMatchObject({ state: 'sending', attempts: 1 });

    // A live tab's claim is respected: the other tab connects and waits.
    await goOnline(main);
    await waitConnected(main);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await sessionOutbox(main, sessionId)).toMatchObject([
      { state: 'sending', attempts: 1, claimedBy: claimed!.claimedBy },
    ]);

    await sender.page.close();
    trap = null;
    const [sent] = await waitAllSent(main, sessionId, 1);
    expect(sent!.attempts).toBe(2);
    expect(sent!.runId).toBe(firstAnswer.runId);
    // Taken over because the tab closed, not because its claim ran out.
    expect(sent!.sentAt!).toBeLessThan(claimed!.claimedUntil!);
    expectDeliveredOnce(await settledTimeline(sessionId, 1), ['echo from a tab that closes'], [sent!]);
  }, 180_000);

  test('PWA-4 two tabs share one outbox: queued in one, shown in both, delivered once', async () => {
    await waitConnected(main);
    const sessionId = await openNewSession(main);
    const other = await openAppTab('other', currentRuntime().appOrigin);
    await waitConnected(other);
    await other.page.locator('li .list-button').first().click();
    await other.page.getByLabel('Message', { exact: true }).waitFor();

    await stopRuntime();
    await waitDisconnected(main);
    const texts = ['echo shared one', 'echo shared two'];
    for (const text of texts) await sendFromComposer(main, text);
    await poll('both entries shown in the other tab', async () => {
      const states = await shownStates(other);
      return states.length === 2 && states.every((entry) => entry.state === 'queued');
    });
    expect((await shownStates(other)).map((entry) => entry.text)).toEqual(texts);

    await startRuntime();
    await Promise.all([nudge(main), nudge(other)]);
    await Promise.all([waitConnected(main), waitConnected(other)]);
    const sent = await waitAllSent(other, sessionId, 2);
    expectDeliveredOnce(await settledTimeline(sessionId, 2), texts, sent);
    for (const tab of [main, other])
      await poll(`no outbox entries shown in ${tab.name}`, async () => (await shownEntries(tab).count()) === 0);
    await other.page.close();
  }, 180_000);

  test('PWA-4 RPC-3 a message the runtime refuses shows as failed, with Retry and Discard', async () => {
    await waitConnected(main);
    const sessionId = await openNewSession(main);
    await withObserver((client) => client.call('sessions.delete', { sessionId }));
    await sendFromComposer(main, 'echo nobody home');

    const failed = main.page.locator('[data-outbox-state="failed"]');
    await failed.waitFor();
    expect(await failed.textContent()).toContain('Failed');
    expect(await failed.textContent()).toContain('No such session.');
    const [first] = await sessionOutbox(main, sessionId);
    expect(first).toMatchObject({ state: 'failed', attempts: 1, error: 'No such session.' });

    await failed.getByRole('button', { name: 'Retry' }).click();
    await poll('a second refused attempt', async () => {
      const [entry] = await sessionOutbox(main, sessionId);
      return entry?.state === 'failed' && entry.attempts === 2;
    });
    await failed.getByRole('button', { name: 'Discard' }).click();
    await poll(
      'the entry gone',
      async () => (await shownEntries(main).count()) === 0 && (await sessionOutbox(main, sessionId)).length === 0,
    );
  }, 120_000);
});
