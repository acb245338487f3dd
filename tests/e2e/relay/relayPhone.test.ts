// Issue 16 end to end, on loopback: a real nats-server, two relay nodes behind a load balancer
// (`relay.localhost`), the desktop runtime linked to node 1, and Chromium as a phone that the
// balancer sends to node 2. The phone pairs from the relay link and uses the product through
// the relay; everything the nodes put on NATS and send to their clients is recorded, and none of
// the output, the files, the messages or a credential may be in it (RLY-1…RLY-4).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { CommandRow } from '../../../lib/protocol/rows';
import { routeHash } from '../../../lib/client/appRoute';
import { shortDigest } from '../../../lib/protocol/buildDigest';
import { REPO_ROOT } from '../../../server/runtime/paths';
import { connectChromium } from '../../fixtures/sharedChromium';
import { startNatsServer, type NatsServer } from '../../fixtures/natsServer';
import { captureNats, startRelayChild, type NatsCapture, type RelayNodeHandle } from '../../fixtures/relayNodes';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { startRuntimeProcess, TEST_TOKEN, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { writeTestVideo } from '../../fixtures/mediaFiles';
import { isCommandRow } from '../../fixtures/sessionHelpers';
import { startTcpBalancer, type TcpBalancer } from '../../fixtures/tcpBalancer';
import { htmlPage, startTestWebServer, type TestWebServer } from '../../fixtures/testWebServer';
import { waitUntil } from '../../fixtures/waitUntil';
import { clickOutputControl, commandRow, createShellSession, DESKTOP_CONTEXT, keptScreenshotPath, newPairingCode, pairThroughLink, playsPast, readQrCanvas, PHONE_CONTEXT, sendCommand, waitCommandFinished, waitConnected } from '../appHarness';
import { controllerDigest, readBuild, serveChanged, shellScript, updateAndSettle } from '../buildTamper';
import { evaluateModuleInPage } from '../moduleInPage';
import { previewedFrame } from '../previewHarness';
import type { OutputRef } from './channelInPage';

/** 1,048,576 lines of 20 bytes: exactly 20 MiB, 80 pages of 256 KiB. */
const BIG_LINES = 1_048_576;
const BIG_COMMAND = `seq -f 'relay line %08.0f' 1 ${BIG_LINES}`;
const BIG_BYTES = BIG_LINES * 20;
const PREVIEW_MARKER = 'preview-script-ran-7Q2VX';
const PREVIEW_CSS_MARKER = 'preview-css-rule-K8ZTN';
const READER_MARKER = 'reader-article-sentence-W3MHD';
const QUEUED_MARKER = 'queued-while-relay-down-J5RPB';
const TICKS_MARKER = 'tick-across-node-death';

function bigOutput(): Buffer {
  const lines: string[] = [];
  for (let i = 1; i <= BIG_LINES; i++) lines.push(`relay line ${String(i).padStart(8, '0')}\n`);
  return Buffer.from(lines.join(''));
}

const ARTICLE = `<!doctype html><html><head><title>Relay reader page</title></head><body><nav><a href="/">Home</a></nav>
<article><h1>Reading through the relay</h1>
${Array.from({ length: 8 }, (_, i) => `<p>Paragraph ${i + 1} of an article read on the desktop and shown on the phone; ${READER_MARKER} travels only inside the channel, never in the clear, while the relay forwards bytes it cannot read.</p>`).join('\n')}
</article></body></html>`;

function writePreviewSite(projectDir: string): void {
  const site = path.join(projectDir, 'site');
  fs.mkdirSync(path.join(site, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(site, 'index.html'), '<!doctype html><html><head><title>Relay site</title><link rel="stylesheet" href="assets/style.css"></head><body><h1 id="title">Relay site</h1><p id="out"></p><img id="logo" src="assets/logo.svg" alt="logo"><script src="assets/app.js"></script></body></html>');
  fs.writeFileSync(path.join(site, 'assets', 'style.css'), `/* ${PREVIEW_CSS_MARKER} */ #title { color: rgb(1, 2, 3); }`);
  fs.writeFileSync(path.join(site, 'assets', 'app.js'), `document.getElementById('out').textContent = '${PREVIEW_MARKER}';`);
  fs.writeFileSync(path.join(site, 'assets', 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="teal"/></svg>');
}

describe('RLY-1…RLY-4 a phone through two relay nodes on NATS', () => {
  let nats: NatsServer;
  let capture: NatsCapture;
  let balancer: TcpBalancer;
  let node1: RelayNodeHandle;
  let node2: RelayNodeHandle;
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let web: TestWebServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let scripts: RpcClient;
  let relayOrigin: string;
  let pairingCode: string;
  let secondCode = '';
  let sessionId: string;
  const retired: RelayNodeHandle[] = [];

  const linkedOn = (node: RelayNodeHandle) => (node.output().match(/desktop linked/g) ?? []).length;

  async function commandRows(): Promise<CommandRow[]> {
    const { rows } = await scripts.call('sessions.timeline', { sessionId, limit: 500 });
    return rows.filter(isCommandRow);
  }

  async function outputRef(command: string): Promise<OutputRef> {
    const row = (await commandRows()).find((r) => r.command === command);
    if (!row) throw new Error(`no command row for ${command}`);
    return { sessionId, runId: row.runId, commandId: row.commandId, generation: row.generation, byteLength: row.byteLength };
  }

  /** Reads an output through a second channel from this browser (its stored key) and hashes it in the page. */
  async function digestInPage(ref: OutputRef): Promise<{ sha256: string; bytes: number; pages: number }> {
    await evaluateModuleInPage(page, 'tests/e2e/relay/channelInPage.ts', 'RelayChannelInPage');
    return page.evaluate((r) => (globalThis as unknown as { RelayChannelInPage: typeof import('./channelInPage') }).RelayChannelInPage.readOutputDigest(r), ref);
  }

  beforeAll(async () => {
    nats = await startNatsServer();
    capture = await captureNats(nats.url);
    balancer = await startTcpBalancer([], { recordFromBackends: true });
    relayOrigin = `http://relay.localhost:${balancer.port}`;
    node1 = await startRelayChild(nats.url, 'node1', balancer.port);
    node2 = await startRelayChild(nats.url, 'node2', balancer.port);
    // The desktop's outbound link lands on node 1.
    balancer.setBackends([node1.port]);
    dirs = makeRuntimeDirs();
    writePreviewSite(dirs.projectDirs[0]!);
    writeTestVideo(path.join(dirs.projectDirs[0]!, 'clip.mp4'), { width: 320, height: 240, seconds: 3 });
    web = await startTestWebServer({ '/article': htmlPage(ARTICLE) });
    runtime = await startRuntimeProcess({
      dataDir: dirs.dataDir,
      projectDirs: dirs.projectDirs,
      wrap: (command) => [...command, '--relay', relayOrigin, '--allow-private-fetch'],
    });
    await waitUntil(() => linkedOn(node1) === 1, () => `the desktop links to node 1:\n${node1.output()}\n${runtime.output()}`, 60_000);
    // From now on new connections (the phone's) go to node 2 while it is up.
    balancer.setBackends([node2.port, node1.port]);
    scripts = await runtime.connect();
    browser = await connectChromium();
    context = await browser.newContext(PHONE_CONTEXT);
    page = await context.newPage();
  }, 180_000);

  afterAll(async () => {
    scripts?.close();
    await browser?.close();
    await runtime?.stopIfRunning();
    for (const node of [node1, node2, ...retired]) await node?.stop();
    await capture?.stop();
    await balancer?.close();
    await nats?.stop();
    await web?.close();
    dirs?.remove();
  });

  it('RLY-2 pairs from the relay link on node 2, with the desktop on node 1', async () => {
    const link = /Pair a device through the relay \(same code\): (\S+)/.exec(runtime.output())?.[1];
    if (!link) throw new Error(`no relay pairing link in the runtime's output:\n${runtime.output()}`);
    const url = new URL(link);
    expect(url.origin).toBe(relayOrigin);
    expect(url.pathname).toBe('/pair');
    pairingCode = new URLSearchParams(url.hash.slice(1)).get('code') ?? '';
    expect(pairingCode).toMatch(/^[0-9A-Z]{5}-[0-9A-Z]{5}$/);
    await page.goto(link);
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    await waitConnected(page);
    // The app came from the relay, and the channel to the desktop runs through node 2.
    expect(new URL(page.url()).origin).toBe(relayOrigin);
    expect(new URL(page.url()).hash).not.toContain(pairingCode);
    expect(balancer.routed).toContain(node2.port);
    const { devices } = await scripts.call('devices.list');
    expect(devices).toHaveLength(1);
  });

  it('RLY-2 the desktop\'s own Devices screen shows the relay QR code, and a second phone pairs from it without a restart', async () => {
    const desktopContext = await browser.newContext(DESKTOP_CONTEXT);
    try {
      const desktop = await desktopContext.newPage();
      await pairThroughLink(desktop, runtime.appOrigin, await newPairingCode(runtime));
      await desktop.getByRole('link', { name: 'Devices' }).click();
      await desktop.getByRole('button', { name: 'Show a pairing code' }).click();
      const link = await waitUntil(() => readQrCanvas(desktop), 'the QR code is drawn and decodes', 15_000);
      secondCode = (await desktop.getByLabel('Pairing code').textContent())!.trim();
      const url = new URL(link);
      expect(url.origin + url.pathname).toBe(`${relayOrigin}/pair`);
      const fragment = new URLSearchParams(url.hash.slice(1));
      expect(fragment.get('code')).toBe(secondCode);
      expect(fragment.get('desktop')).toMatch(/^[a-z2-7]{32}$/);
      for (const colorScheme of ['light', 'dark'] as const) {
        await desktop.emulateMedia({ colorScheme });
        await desktop.getByRole('heading', { name: 'Pair another device' }).scrollIntoViewIfNeeded();
        await desktop.screenshot({ path: keptScreenshotPath('relay', `devices-choice-desktop-${colorScheme}`) });
      }
      // The other choice is this computer's own address, with the same code.
      await desktop.getByRole('button', { name: "This computer's address" }).click();
      await waitUntil(async () => (await readQrCanvas(desktop)) === `${runtime.appOrigin}/pair#code=${encodeURIComponent(secondCode)}`, 'the QR code switches to the local link');

      const secondPhone = await (await browser.newContext(PHONE_CONTEXT)).newPage();
      await secondPhone.goto(link);
      await secondPhone.getByRole('button', { name: 'Pair', exact: true }).click();
      await waitConnected(secondPhone);
      await secondPhone.context().close();
      const { devices } = await scripts.call('devices.list');
      expect(devices).toHaveLength(3);
    } finally {
      await desktopContext.close();
    }
  });

  it('RLY-3 runs a shell session and pages a 20 MiB output byte-exact through the relay', async () => {
    await createShellSession(page);
    await sendCommand(page, BIG_COMMAND);
    expect(await waitCommandFinished(page, BIG_COMMAND, 120_000)).toBe('exit 0');
    const { sessions } = await scripts.call('sessions.list');
    sessionId = sessions[0]!.id;
    // In the viewer: a finished command opens at its last line (UX-1), then Start shows the first.
    await commandRow(page, BIG_COMMAND).click();
    await page.getByText(`relay line ${String(BIG_LINES).padStart(8, '0')}`, { exact: true }).waitFor({ timeout: 30_000 });
    await clickOutputControl(page, 'Start');
    await page.getByText('relay line 00000001', { exact: true }).waitFor({ timeout: 30_000 });
    // Every page, read through the relay from this browser with its stored key, hashed in the page.
    const ref = await outputRef(BIG_COMMAND);
    expect(ref.byteLength).toBe(BIG_BYTES);
    const read = await digestInPage(ref);
    expect(read.bytes).toBe(BIG_BYTES);
    expect(read.pages).toBe(80);
    expect(read.sha256).toBe(createHash('sha256').update(bigOutput()).digest('hex'));
    await page.getByRole('button', { name: 'Back to timeline' }).click();
  });

  it('RLY-3 opens a multi-file preview site on the relay\'s preview origin, its files from the desktop through the app', async () => {
    await page.goto(`${relayOrigin}/${routeHash({ kind: 'preview', projectDirectory: dirs.projectDirs[0]!, path: 'site/index.html' })}`);
    const frame = await previewedFrame(page, '/site/index.html', 60_000);
    expect(new URL(frame.url()).hostname).toMatch(/^p-[0-9a-f]{32}\.relay\.localhost$/);
    await frame.locator('#out').filter({ hasText: PREVIEW_MARKER }).waitFor({ timeout: 30_000 });
    expect(await frame.locator('#title').evaluate((el) => getComputedStyle(el).color)).toBe('rgb(1, 2, 3)');
    await waitUntil(() => frame.locator('#logo').evaluate((img) => (img as HTMLImageElement).naturalWidth === 40), 'the SVG image loads');
  });

  it('RLY-3 reads a web page in the reader through the relay', async () => {
    await page.goto(`${relayOrigin}/#/`);
    await waitConnected(page);
    await page.getByRole('link', { name: 'Web', exact: true }).click();
    await page.getByLabel('Web address').fill(`${web.origin}/article`);
    await page.getByRole('button', { name: 'Read', exact: true }).click();
    const article = page.locator('[data-testid="reader"] article');
    await article.getByText(READER_MARKER).first().waitFor({ timeout: 30_000 });
  });

  it('RLY-3 FILE-13 plays a video rendition through the relay, range by range through the service worker', async () => {
    await page.goto(`${relayOrigin}/${routeHash({ kind: 'files', projectDirectory: dirs.projectDirs[0]!, path: 'clip.mp4' })}`);
    // A new hash is the same document: reload once the worker is ready, so it controls the page.
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
    await page.reload();
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await waitConnected(page);
    const video = page.locator('.file-view video');
    await video.waitFor({ timeout: 60_000 });
    expect(await video.getAttribute('data-source')).toBe('range');
    await playsPast(page, '.file-view video', 0.5);
  });

  it('RLY-3 a message queued while the relay is down is delivered once after it is back', async () => {
    await page.goto(`${relayOrigin}/${routeHash({ kind: 'sessions', sessionId })}`);
    await waitConnected(page);
    const oldPorts = [node1.port, node2.port];
    await node2.kill();
    await node1.kill();
    retired.push(node1, node2);
    await page.getByText('Connected', { exact: true }).waitFor({ state: 'detached', timeout: 30_000 });
    const command = `echo ${QUEUED_MARKER}`;
    await sendCommand(page, command);
    await page.locator('[data-row="outbox"][data-outbox-state="queued"]').waitFor();
    // The relay comes back (new processes, new ports behind the same public name).
    node1 = await startRelayChild(nats.url, 'node1b', balancer.port);
    node2 = await startRelayChild(nats.url, 'node2b', balancer.port);
    expect(oldPorts).not.toContain(node1.port);
    balancer.setBackends([node1.port]);
    await waitUntil(() => linkedOn(node1) === 1, () => `the desktop links again:\n${node1.output()}`, 60_000);
    balancer.setBackends([node2.port, node1.port]);
    await page.getByText('Connected', { exact: true }).waitFor({ timeout: 60_000 });
    expect(await waitCommandFinished(page, command, 60_000)).toBe('exit 0');
    await waitUntil(async () => (await page.locator('[data-row="outbox"]').count()) === 0, 'the outbox is empty');
    expect((await commandRows()).filter((r) => r.command === command)).toHaveLength(1);
    expect(await commandRow(page, command).count()).toBe(1);
  });

  it('RLY-4 kills node 2 under the connected phone: it reconnects through node 1, nothing lost or duplicated', async () => {
    // While the desktop linked again, node 1 was the balancer's only backend, and the phone may
    // have reconnected through it then: a reload puts the phone's channel on node 2, tried first.
    await page.reload();
    await waitConnected(page);
    expect(balancer.routed.at(-1)).toBe(node2.port);
    const command = `for i in $(seq 1 60); do echo ${TICKS_MARKER}-$i; sleep 0.1; done`;
    await sendCommand(page, command);
    await commandRow(page, command).locator('[data-status="running"]').waitFor({ timeout: 30_000 });
    await node2.kill();
    retired.push(node2);
    // The balancer now sends the phone's new connection to node 1.
    await page.getByText('Connected', { exact: true }).waitFor({ timeout: 60_000 });
    expect(await waitCommandFinished(page, command, 60_000)).toBe('exit 0');
    const second = `echo after-node-death`;
    await sendCommand(page, second);
    expect(await waitCommandFinished(page, second, 60_000)).toBe('exit 0');
    const rows = await commandRows();
    expect(rows.filter((r) => r.command === command)).toHaveLength(1);
    expect(rows.filter((r) => r.command === second)).toHaveLength(1);
    const expected = Array.from({ length: 60 }, (_, i) => `${TICKS_MARKER}-${i + 1}\n`).join('');
    const ref = await outputRef(command);
    const read = await digestInPage(ref);
    expect(read.sha256).toBe(createHash('sha256').update(expected).digest('hex'));
    expect(await commandRow(page, command).count()).toBe(1);
  });

  it('RLY-1 no byte of the output, the files, the messages or a credential crossed NATS or went from a node to a client in the clear', async () => {
    const sentToClients = balancer.fromBackends();
    expect(sentToClients.length).toBeGreaterThan(BIG_BYTES); // the 20 MiB went through, sealed
    expect(capture.messages.length).toBeGreaterThan(80);
    const identity = JSON.parse(fs.readFileSync(path.join(dirs.dataDir, 'relay-identity.json'), 'utf8')) as Record<'ed25519' | 'x25519', { privateKeyPkcs8: string }>;
    const privateKeys = [identity.ed25519.privateKeyPkcs8, identity.x25519.privateKeyPkcs8];
    const secrets: Buffer[] = [
      ...['relay line 0000', PREVIEW_MARKER, PREVIEW_CSS_MARKER, READER_MARKER, QUEUED_MARKER, TICKS_MARKER, 'after-node-death', pairingCode, pairingCode.replace('-', ''), secondCode, secondCode.replace('-', ''), TEST_TOKEN].map((s) => Buffer.from(s)),
      ...privateKeys.map((key) => Buffer.from(key)),
      // The raw private keys: the last 32 bytes of each PKCS #8 form.
      ...privateKeys.map((key) => Buffer.from(key, 'base64url').subarray(-32)),
    ];
    for (const secret of secrets) {
      expect(sentToClients.includes(secret), `${secret.toString('hex')} sent to a client`).toBe(false);
      expect(capture.contains(secret), `${secret.toString('hex')} on NATS`).toBe(false);
    }
    // The check can fail: the same search finds what a node did send in the clear.
    expect(sentToClients.includes(Buffer.from('"type":"challenge"'))).toBe(true);
  });

  it('RLY-5 a relay node serving a tampered build: the installed app refuses it, says so, and keeps working through that node', async () => {
    const outDir = path.join(REPO_ROOT, 'out');
    const buildA = readBuild(outDir);
    // Installed from the relay: the worker is active, and a reload puts the page under it.
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
    await page.reload();
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await waitConnected(page);
    await waitUntil(async () => (await controllerDigest(page)) === buildA.digest, 'the app from the relay runs under its worker, build A');
    // The relay's operator swaps in a node serving the build with one shell script changed (and the
    // worker's list naming the changed bytes), and takes the honest node away: from now on the
    // phone's requests, its channels and the desktop's link all go through the tampering node.
    const tampered = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-tampered-build-'));
    try {
      fs.cpSync(outDir, tampered, { recursive: true });
      const script = shellScript(tampered);
      const workerA = fs.readFileSync(path.join(tampered, 'sw.js'), 'utf8');
      const digestB = await serveChanged(tampered, buildA, workerA, script, Buffer.concat([fs.readFileSync(path.join(tampered, script)), Buffer.from('\n;/* changed by the relay */\n')]));
      const node3 = await startRelayChild(nats.url, 'node3', balancer.port, ['--app-dir', tampered]);
      retired.push(node3);
      balancer.setBackends([node3.port]);
      await node1.kill();
      await page.getByText('Connected', { exact: true }).waitFor({ state: 'detached', timeout: 30_000 });
      await waitUntil(() => linkedOn(node3) === 1, () => `the desktop links to node 3:\n${node3.output()}`, 60_000);
      await page.getByText('Connected', { exact: true }).waitFor({ timeout: 60_000 });

      expect(await updateAndSettle(page)).toBe('redundant');
      const warning = page.locator('[data-build-warning="refused"]');
      await warning.waitFor({ timeout: 30_000 });
      const text = (await warning.textContent()) ?? '';
      expect(text).toContain('The relay served an app build your desktop does not vouch for. The installed version keeps working.');
      expect(text).toContain(shortDigest(digestB));
      expect(text).toContain(shortDigest(buildA.digest));
      expect(await controllerDigest(page)).toBe(buildA.digest);
      expect(await page.getByText('A new version of HB Code is ready.').count()).toBe(0);
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        await page.screenshot({ path: keptScreenshotPath('relay', `tampered-build-phone-${colorScheme}`) });
      }
      await page.emulateMedia({ colorScheme: 'light' });

      // The installed build goes on working through the node that tried to replace it.
      await page.goto(`${relayOrigin}/${routeHash({ kind: 'sessions', sessionId })}`);
      await waitConnected(page);
      expect(await controllerDigest(page)).toBe(buildA.digest);
      const command = 'echo still-build-a';
      await sendCommand(page, command);
      expect(await waitCommandFinished(page, command, 60_000)).toBe('exit 0');
      expect(balancer.routed.at(-1)).toBe(node3.port);
    } finally {
      fs.rmSync(tampered, { recursive: true, force: true });
    }
  }, 180_000);
});
