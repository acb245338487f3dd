// Issue 25's "Must show" in Chromium (RLY-6, RLY-7): on loopback, Debian's pebble, a real
// nats-server and two relay nodes. The desktop gets its certificate through the relay by
// TLS-ALPN-01, links to node 1, and serves its own app, /rpc and previews on its relay names; a
// phone-sized Chromium, trusting pebble's root in its NSS database (no certificate error ignored),
// reaches those names through node 2 and uses the product there: it pairs by the printed QR link,
// pages a 20 MiB output byte-exact, opens a multi-file preview on the preview name, reads a page
// in the reader, queues a message while the relay is down, and loses nothing when its node is killed.
import { createHash } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeHash } from '../../../lib/client/appRoute';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { CommandRow } from '../../../lib/protocol/rows';
import { isCommandRow } from '../../fixtures/sessionHelpers';
import { htmlPage, startTestWebServer, type TestWebServer } from '../../fixtures/testWebServer';
import { waitUntil } from '../../fixtures/waitUntil';
import {
  clickOutputControl,
  commandRow,
  createShellSession,
  keepLightAndDark,
  PHONE_CONTEXT,
  sendCommand,
  waitCommandFinished,
  waitConnected,
} from '../appHarness';
import { evaluateModuleInPage } from '../moduleInPage';
import type { OutputRef } from './outputInPage';
import {
  startPassthroughAssembly,
  waitForCertificate,
  writePreviewSite,
  type PassthroughAssembly,
} from './passthroughAssembly';

/** Bounds of this file's waits, in one place. */
const TIMEOUTS = { test: 180_000, certificate: 120_000, bigCommand: 120_000, page: 30_000, relink: 60_000 };
/** 1,048,576 lines of 20 bytes: exactly 20 MiB, 80 pages of 256 KiB. */
const BIG_LINES = 1_048_576;
const BIG_COMMAND = `seq -f 'relay line %08.0f' 1 ${BIG_LINES}`;
const BIG_BYTES = BIG_LINES * 20;
const PREVIEW_MARKER = 'passthrough-preview-script-ran-4KQ2';
const READER_MARKER = 'passthrough-reader-sentence-9XWD';
const QUEUED_MARKER = 'queued-while-relay-down-T7HV';
const TICKS_MARKER = 'tick-across-node-kill';

function bigOutput(): Buffer {
  const lines: string[] = [];
  for (let i = 1; i <= BIG_LINES; i++) lines.push(`relay line ${String(i).padStart(8, '0')}\n`);
  return Buffer.from(lines.join(''));
}

const ARTICLE = `<!doctype html><html><head><title>Passthrough reader page</title></head><body><nav><a href="/">Home</a></nav>
<article><h1>Reading through the relay's passthrough</h1>
${Array.from({ length: 8 }, (_, i) => `<p>Paragraph ${i + 1} of an article the desktop reads and the phone shows; ${READER_MARKER} crosses the relay inside TLS only.</p>`).join('\n')}
</article></body></html>`;

describe('RLY-6 RLY-7 a phone in Chromium through the desktop’s own relay names, two nodes, pebble', () => {
  let relay: PassthroughAssembly;
  let web: TestWebServer;
  let context: BrowserContext;
  let page: Page;
  let scripts: RpcClient;
  let sessionId: string;

  const node1 = () => relay.nodes[0]!;
  const node2 = () => relay.nodes[1]!;

  async function commandRows(): Promise<CommandRow[]> {
    const { rows } = await scripts.call('sessions.timeline', { sessionId, limit: 500 });
    return rows.filter(isCommandRow);
  }

  async function outputRef(command: string): Promise<OutputRef> {
    const row = (await commandRows()).find((r) => r.command === command);
    if (!row) throw new Error(`no command row for ${command}`);
    return {
      sessionId,
      runId: row.runId,
      commandId: row.commandId,
      generation: row.generation,
      byteLength: row.byteLength,
    };
  }

  /** Reads an output through a second socket from this page (its stored token) and hashes it in the page. */
  async function digestInPage(ref: OutputRef): Promise<{ sha256: string; bytes: number; pages: number }> {
    await evaluateModuleInPage(page, 'tests/e2e/relay/outputInPage.ts', 'PassthroughOutputInPage');
    return page.evaluate(
      (r) =>
        (
          globalThis as unknown as { PassthroughOutputInPage: typeof import('./outputInPage') }
        ).PassthroughOutputInPage.readOutputDigest(r),
      ref,
    );
  }

  /** Restarts both nodes (new processes, new ports behind the same public ports), the desktop's on node 1 again. */
  async function restartNodes(): Promise<void> {
    const fresh = [await relay.startNode(`node1-${Date.now()}`), await relay.startNode(`node2-${Date.now()}`)];
    relay.nodes.push(...fresh);
    relay.nodes.splice(0, relay.nodes.length - 2);
    relay.linkBalancer.setBackends([node1().node.port]);
    relay.tlsBalancer.setBackends([node1().tlsPort]);
    await waitUntil(
      () => relay.linkedOn(node1().node) === 1,
      () => `the desktop links again:\n${node1().node.output()}`,
      TIMEOUTS.relink,
    );
    relay.tlsBalancer.setBackends([node2().tlsPort, node1().tlsPort]);
  }

  beforeAll(async () => {
    web = await startTestWebServer({ '/article': htmlPage(ARTICLE) });
    relay = await startPassthroughAssembly({
      prepareProject: (dir) => writePreviewSite(dir, PREVIEW_MARKER),
      runtimeFlags: ['--allow-private-fetch'],
    });
    await waitForCertificate(relay, TIMEOUTS.certificate);
    scripts = await relay.runtime.connect();
    context = await relay.browser.newContext(PHONE_CONTEXT);
    page = await context.newPage();
  }, 300_000);

  afterAll(async () => {
    scripts?.close();
    await relay?.stop();
    await web?.close();
  }, TIMEOUTS.test);

  it(
    'RLY-7 RLY-2 the printed QR link is the desktop’s own name under pebble’s certificate; Chromium pairs there through node 2 with the desktop on node 1, and its service worker installs',
    async () => {
      const link = new URL(relay.printedLink);
      expect(link.origin).toBe(relay.appOrigin);
      expect(link.hostname).toMatch(/^[a-z2-7]{32}\.relay\.localhost$/);
      expect(link.pathname).toBe('/pair');
      const code = new URLSearchParams(link.hash.slice(1)).get('code') ?? '';
      expect(code).toMatch(/^[0-9A-Z]{5}-[0-9A-Z]{5}$/);
      const response = await page.goto(relay.printedLink);
      const security = await response!.securityDetails();
      expect(security?.subjectName).toBe(link.hostname);
      expect(security?.issuer).toMatch(/^Pebble Intermediate CA/);
      await page.getByRole('button', { name: 'Pair', exact: true }).click();
      await waitConnected(page);
      expect(new URL(page.url()).origin).toBe(relay.appOrigin);
      expect(new URL(page.url()).hash).not.toContain(code);
      expect(relay.tlsBalancer.routed).toContain(node2().tlsPort);
      expect(relay.linkedOn(node2().node)).toBe(0);
      const { devices } = await scripts.call('devices.list');
      expect(devices).toHaveLength(1);
      // The worker installs from a clean certificate and controls the page after a reload.
      await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
      await page.reload();
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
      await waitConnected(page);
    },
    TIMEOUTS.test,
  );

  it(
    'RLY-3 runs a shell session and pages a 20 MiB output byte-exact through the passthrough',
    async () => {
      await createShellSession(page);
      await sendCommand(page, BIG_COMMAND);
      expect(await waitCommandFinished(page, BIG_COMMAND, TIMEOUTS.bigCommand)).toBe('exit 0');
      const { sessions } = await scripts.call('sessions.list');
      sessionId = sessions[0]!.id;
      await keepLightAndDark(page, 'relay', 'passthrough-session-phone');
      // In the viewer: it opens at the last line; Start shows the first.
      await commandRow(page, BIG_COMMAND).click();
      await page
        .getByText(`relay line ${String(BIG_LINES).padStart(8, '0')}`, { exact: true })
        .waitFor({ timeout: TIMEOUTS.page });
      await clickOutputControl(page, 'Start');
      await page.getByText('relay line 00000001', { exact: true }).waitFor({ timeout: TIMEOUTS.page });
      await keepLightAndDark(page, 'relay', 'passthrough-output-phone');
      // Every page, read from this page through the relay, hashed here, against the expected bytes.
      const ref = await outputRef(BIG_COMMAND);
      expect(ref.byteLength).toBe(BIG_BYTES);
      const read = await digestInPage(ref);
      expect(read.bytes).toBe(BIG_BYTES);
      expect(read.pages).toBe(80);
      expect(read.sha256).toBe(createHash('sha256').update(bigOutput()).digest('hex'));
      await page.getByRole('button', { name: 'Back to timeline' }).click();
    },
    TIMEOUTS.test,
  );

  it(
    'RLY-6 opens a multi-file preview on the desktop’s preview name, isolated from the app',
    async () => {
      await page.goto(
        `${relay.appOrigin}/${routeHash({ kind: 'preview', projectDirectory: relay.dirs.projectDirs[0]!, path: 'site/index.html' })}`,
      );
      // One shared preview origin per desktop (one certificate): the preview's id leads its path.
      const frame = await waitUntil(
        () =>
          page
            .frames()
            .find((f) => f.url().startsWith(`${relay.previewOrigin}/p-`) && f.url().endsWith('/site/index.html')),
        'the previewed page shows on the desktop’s preview name',
        TIMEOUTS.relink,
      );
      const appHost = new URL(relay.appOrigin).hostname;
      expect(new URL(frame.url()).hostname).toBe(`p-${appHost}`);
      await frame.locator('#out').filter({ hasText: PREVIEW_MARKER }).waitFor({ timeout: TIMEOUTS.page });
      expect(await frame.locator('#title').evaluate((el) => getComputedStyle(el).color)).toBe('rgb(1, 2, 3)');
      await waitUntil(
        () => frame.locator('#logo').evaluate((img) => (img as HTMLImageElement).naturalWidth === 40),
        'the SVG image loads',
      );
      // PRV-6: the address line shows the page's own path, not the shared origin's `/p-<id>` prefix.
      await waitUntil(
        async () => (await page.locator('section.preview .topbar .mono').textContent()) === '/site/index.html',
        'the address line shows /site/index.html',
      );
      // Another origin: the previewed page cannot reach the app's storage or document.
      expect(
        await frame.evaluate(() => {
          try {
            return window.top!.document.title;
          } catch {
            return 'refused';
          }
        }),
      ).toBe('refused');
      await keepLightAndDark(page, 'relay', 'passthrough-preview-phone');
    },
    TIMEOUTS.test,
  );

  it(
    'RLY-3 reads a web page in the reader through the passthrough',
    async () => {
      await page.goto(`${relay.appOrigin}/#/`);
      await waitConnected(page);
      await page.getByRole('link', { name: 'Web', exact: true }).click();
      await page.getByLabel('Web address').fill(`${web.origin}/article`);
      await page.getByRole('button', { name: 'Read', exact: true }).click();
      await page
        .locator('[data-testid="reader"] article')
        .getByText(READER_MARKER)
        .first()
        .waitFor({ timeout: TIMEOUTS.page });
    },
    TIMEOUTS.test,
  );

  it(
    'RLY-3 a message queued while the relay is down is delivered once after it is back',
    async () => {
      await page.goto(`${relay.appOrigin}/${routeHash({ kind: 'sessions', sessionId })}`);
      await waitConnected(page);
      for (const { node } of relay.nodes) await node.stop();
      await page.getByText('Connected', { exact: true }).waitFor({ state: 'detached', timeout: TIMEOUTS.page });
      const command = `echo ${QUEUED_MARKER}`;
      await sendCommand(page, command);
      await page.locator('[data-row="outbox"][data-outbox-state="queued"]').waitFor();
      await restartNodes();
      await page.getByText('Connected', { exact: true }).waitFor({ timeout: TIMEOUTS.relink });
      expect(await waitCommandFinished(page, command, TIMEOUTS.relink)).toBe('exit 0');
      await waitUntil(async () => (await page.locator('[data-row="outbox"]').count()) === 0, 'the outbox is empty');
      expect((await commandRows()).filter((r) => r.command === command)).toHaveLength(1);
      expect(await commandRow(page, command).count()).toBe(1);
    },
    TIMEOUTS.test,
  );

  it(
    'RLY-4 SIGKILL of the phone’s node (A) while the desktop is on node B: the app reconnects through B, nothing lost or duplicated',
    async () => {
      // The phone's connection goes to node 2 (A), tried first; the desktop stays linked to node 1 (B).
      await page.reload();
      await waitConnected(page);
      expect(relay.tlsBalancer.routed.at(-1)).toBe(node2().tlsPort);
      const rowsBefore = (await commandRows()).length;
      const command = `for i in $(seq 1 60); do echo ${TICKS_MARKER}-$i; sleep 0.1; done`;
      await sendCommand(page, command);
      await commandRow(page, command).locator('[data-status="running"]').waitFor({ timeout: TIMEOUTS.page });
      await node2().node.kill();
      await page.getByText('Connected', { exact: true }).waitFor({ timeout: TIMEOUTS.relink });
      expect(await waitCommandFinished(page, command, TIMEOUTS.relink)).toBe('exit 0');
      expect(relay.tlsBalancer.routed.at(-1)).toBe(node1().tlsPort);
      const second = 'echo after-node-kill';
      await sendCommand(page, second);
      expect(await waitCommandFinished(page, second, TIMEOUTS.relink)).toBe('exit 0');
      const rows = await commandRows();
      expect(rows).toHaveLength(rowsBefore + 2);
      expect(rows.filter((r) => r.command === command)).toHaveLength(1);
      expect(rows.filter((r) => r.command === second)).toHaveLength(1);
      const expected = Array.from({ length: 60 }, (_, i) => `${TICKS_MARKER}-${i + 1}\n`).join('');
      const read = await digestInPage(await outputRef(command));
      expect(read.sha256).toBe(createHash('sha256').update(expected).digest('hex'));
      expect(await commandRow(page, command).count()).toBe(1);
      expect(await commandRow(page, second).count()).toBe(1);
    },
    TIMEOUTS.test,
  );
});
