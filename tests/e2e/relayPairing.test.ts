// The app served by a relay (RLY-2, RLY-3): the built app on a fake relay origin, a real runtime
// behind it through an in-test bridge, real Chromium pairing from the relay's pairing link.
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../server/runtime/paths';
import { relayPairingUrl } from '../../lib/relay/relayWire';
import { routeHash } from '../../lib/client/appRoute';
import { HTTP_FILE_CHUNK_PATH } from '../../lib/protocol/httpBytes';
import { previewOriginOf } from '../../server/http/previewOrigins';
import { startFakeRelay, type FakeRelay } from '../fixtures/relay/fakeRelayNode';
import { runtimeBridge } from '../fixtures/relay/runtimeBridge';
import { waitUntil } from '../fixtures/waitUntil';
import { commandRow, createShellSession, DESKTOP_CONTEXT, keptScreenshotPath, newPairingCode, PHONE_CONTEXT, sendCommand, waitCommandFinished, waitConnected } from './appHarness';
import { seedShellSession, useAppSuite } from './appSuite';
import { previewedFrame } from './previewHarness';

interface StoredRelayKey {
  token: string;
  deviceId: string;
  desktopId: string | null;
  isCryptoKey: boolean;
  extractable: boolean | null;
  type: string | null;
  algorithm: string | null;
  publicKeyBytes: number;
}

/** The pairing as the app stored it in IndexedDB, with what its private key says about itself. */
function readStoredRelayKey(page: Page): Promise<StoredRelayKey | null> {
  return page.evaluate(
    () =>
      new Promise<StoredRelayKey | null>((resolve, reject) => {
        const open = indexedDB.open('hbcode');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const get = open.result.transaction('settings').objectStore('settings').get('device');
          get.onerror = () => reject(get.error);
          get.onsuccess = () => {
            open.result.close();
            const found = get.result as { token: string; deviceId: string; relay?: { desktopId: string; privateKey: CryptoKey; publicKey: Uint8Array } } | undefined;
            if (!found) return resolve(null);
            const key = found.relay?.privateKey;
            resolve({
              token: found.token,
              deviceId: found.deviceId,
              desktopId: found.relay?.desktopId ?? null,
              isCryptoKey: key instanceof CryptoKey,
              extractable: key?.extractable ?? null,
              type: key?.type ?? null,
              algorithm: key?.algorithm.name ?? null,
              publicKeyBytes: found.relay?.publicKey.byteLength ?? 0,
            });
          };
        };
      }),
  );
}

describe('RLY-2 the app paired through a relay', () => {
  const suite = useAppSuite();
  let relay: FakeRelay;
  let bridge: ReturnType<typeof runtimeBridge>;

  beforeAll(async () => {
    await seedShellSession(suite.runtime, 'Through the relay', ['echo relayed-output']);
    fs.writeFileSync(path.join(suite.runtime.projectDir, 'relay-page.html'), '<!doctype html><title>Relayed</title><h1 id="relayed">A preview through the relay</h1><script>document.getElementById("relayed").dataset.ran = "yes"</script>');
    fs.writeFileSync(path.join(suite.runtime.projectDir, 'relay-notes.md'), `# Read through the relay\n\n${'Every byte sealed. '.repeat(20_000)}\n`);
    bridge = runtimeBridge(suite.runtime, { pairingLink: (code) => pairingLink(code), previewOrigin: (previewId) => previewOriginOf(relay.previews, previewId) });
    relay = await startFakeRelay({ appDir: path.join(REPO_ROOT, 'out'), accept: (hello, key) => bridge.accept(hello, key) });
  }, 120_000);
  afterAll(async () => {
    await relay?.close();
  });

  const pairingLink = (code: string) => relayPairingUrl(relay.origin, { code, desktop: relay.desktopId, key: relay.desktopKeyText });

  async function openPairingLink(contextOptions: BrowserContextOptions, code: string): Promise<Page> {
    const page = await (await suite.browser.newContext(contextOptions)).newPage();
    await page.goto(pairingLink(code));
    const input = page.getByLabel('Pairing code');
    await waitUntil(async () => (await input.inputValue()) === code, 'the relay link fills in its code');
    return page;
  }

  it('RLY-2 RLY-3 pairs from the link with a non-extractable key; sessions, commands, output, files and previews on the relay’s preview origins work through the channel; it reconnects with the key and signs out through the relay', async () => {
    const code = await newPairingCode(suite.runtime);
    const page = await openPairingLink(PHONE_CONTEXT, code);
    const sent: string[] = [];
    page.on('request', (request) => sent.push(`${request.url()} ${request.postData() ?? ''}`));
    page.on('websocket', (socket) => sent.push(socket.url()));
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    await waitConnected(page);

    // The fragment left the address bar, and nothing the page sent carried the code or the key.
    expect(page.url()).toBe(`${relay.origin}/`);
    const seenByRelay = JSON.stringify(relay.requests) + sent.join('\n');
    expect(seenByRelay).not.toContain(code);
    expect(seenByRelay).not.toContain(relay.desktopKeyText);
    expect(new Set(sent.filter((url) => url.startsWith('ws')))).toEqual(new Set([`ws://${relay.host}/relay/device?desktop=${relay.desktopId}`]));
    expect(relay.hellos.map((hello) => hello.pair?.code ?? null)).toEqual([code, null]);

    const stored = await readStoredRelayKey(page);
    expect(stored).toMatchObject({ token: '', desktopId: relay.desktopId, isCryptoKey: true, extractable: false, type: 'private', algorithm: 'X25519', publicKeyBytes: 32 });
    const deviceId = stored!.deviceId;

    // Sessions, timelines and output pages come through the channel from the real runtime.
    await page.getByText('Through the relay').first().click();
    await commandRow(page, 'echo relayed-output').waitFor();
    await page.getByText('relayed-output', { exact: true }).first().waitFor();

    // Typed on the device, through the outbox and the channel, run by the runtime, its live rows back.
    await page.goto(`${relay.origin}/`);
    await createShellSession(page);
    await sendCommand(page, 'echo typed-through-the-relay');
    expect(await waitCommandFinished(page, 'echo typed-through-the-relay', 60_000)).toMatch(/exit 0/);

    // File bytes go as binary frames inside the channel, never as HTTP requests to the relay (RLY-3).
    await page.goto(`${relay.origin}/${routeHash({ kind: 'files', projectDirectory: suite.runtime.projectDir, path: 'relay-notes.md' })}`);
    await page.locator('.markdown-view h1').filter({ hasText: 'Read through the relay' }).waitFor();
    expect(relay.requests.filter((request) => request.url.startsWith(HTTP_FILE_CHUNK_PATH))).toEqual([]);

    // A preview on the relay's preview origin: its host page from the relay, its files from the desktop through the app.
    await page.goto(`${relay.origin}/${routeHash({ kind: 'preview', projectDirectory: suite.runtime.projectDir, path: 'relay-page.html' })}`);
    const previewed = await previewedFrame(page, '/relay-page.html', 60_000);
    expect(new URL(previewed.url()).host).toMatch(new RegExp(`^p-[0-9a-f]{32}\\.relay\\.localhost:${relay.port}$`));
    await previewed.locator('#relayed[data-ran="yes"]').waitFor();
    expect(await previewed.locator('#relayed').textContent()).toBe('A preview through the relay');

    await page.reload();
    await waitConnected(page);
    expect(relay.hellos.at(-1)).toEqual({ v: 1 });

    // The Devices screen shows the relay's link for another device, which pairs from it (DEV-1).
    await page.goto(`${relay.origin}/${routeHash({ kind: 'devices' })}`);
    await page.getByRole('button', { name: 'Show a pairing code' }).click();
    await page.getByText('Through the relay, scan the QR code or open the link on the other device').waitFor();
    await page.screenshot({ path: keptScreenshotPath('relay', 'devices-link-phone-light') });
    const shownLink = (await page.locator('.pairing-code .ellipsis').textContent()) ?? '';
    expect(shownLink).toMatch(new RegExp(`^${relay.origin}/pair#code=.+&desktop=${relay.desktopId}&key=`));
    const second = await (await suite.browser.newContext(DESKTOP_CONTEXT)).newPage();
    await second.goto(shownLink);
    await second.getByRole('button', { name: 'Pair', exact: true }).click();
    await waitConnected(second);
    await second.context().close();

    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('button', { name: 'Sign out of this device' }).click();
    await page.getByRole('heading', { name: 'Pair this device' }).waitFor();
    expect(await page.getByRole('alert').filter({ hasText: /\S/ }).textContent()).toMatch(/You signed out/);
    // The relay origin without a link asks for the link, and the key is gone from this device.
    await page.getByText('This page is served by a relay').waitFor();
    expect(await readStoredRelayKey(page)).toBeNull();
    const admin = await suite.runtime.connect();
    try {
      await waitUntil(async () => !(await admin.call('devices.list')).devices.some((device) => device.id === deviceId), 'the runtime revoked the device');
    } finally {
      admin.close();
    }
    await page.context().close();
  }, 120_000);

  it('RLY-2 with the desktop away from the relay the app says so; a sign-out made then is sent through the relay once it is back, and the key is forgotten', async () => {
    const page = await openPairingLink(DESKTOP_CONTEXT, await newPairingCode(suite.runtime));
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    await waitConnected(page);
    const { deviceId } = (await readStoredRelayKey(page))!;
    relay.desktopLinked = false;
    relay.channels.at(-1)!.close(4502, 'desktop link lost');
    await waitUntil(async () => (await page.getByText('Connected', { exact: true }).count()) === 0, 'the app sees the desktop gone');
    await page.getByTestId('offline-banner').filter({ hasText: 'Your desktop is not connected to the relay' }).waitFor();
    await page.screenshot({ path: keptScreenshotPath('relay', 'desktop-away-desktop-light') });
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('button', { name: 'Sign out of this device' }).click();
    await page.getByRole('heading', { name: 'Pair this device' }).waitFor();
    expect(await page.getByRole('alert').filter({ hasText: /\S/ }).textContent()).toMatch(/will be told when it can be reached/);
    expect(await readStoredRelayKey(page)).toBeNull();

    relay.desktopLinked = true;
    // The device sees its network come back: the queued sign-out is tried at once, not at its next 15 s retry.
    await page.evaluate(() => window.dispatchEvent(new Event('online')));
    const admin = await suite.runtime.connect();
    try {
      await waitUntil(async () => !(await admin.call('devices.list')).devices.some((device) => device.id === deviceId), 'the queued sign-out reaches the desktop through the relay', 90_000);
    } finally {
      admin.close();
    }
    // The queued record, and the key in it, is gone once the desktop revoked the device.
    await waitUntil(() => page.evaluate(() => new Promise<boolean>((resolve) => {
      const open = indexedDB.open('hbcode');
      open.onsuccess = () => {
        const get = open.result.transaction('settings').objectStore('settings').get('pendingSignOut');
        get.onsuccess = () => {
          open.result.close();
          resolve(get.result === undefined);
        };
      };
    })), 'the queued sign-out and its key are forgotten');
    await page.context().close();
  }, 120_000);

  it('RLY-2 the relay pair screen in its states, at phone and desktop size, light and dark', async () => {
    /** Both schemes of the page as it stands: the pair screen's colours are CSS alone (prefers-color-scheme). */
    const shootBothSchemes = async (page: Page, name: string, size: string) => {
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        await page.screenshot({ path: keptScreenshotPath('relay', `${name}-${size}-${colorScheme}`) });
      }
    };
    const code = await newPairingCode(suite.runtime);
    for (const [size, contextOptions] of [['phone', PHONE_CONTEXT], ['desktop', DESKTOP_CONTEXT]] as const) {
      // The link's pair screen, then the same screen once a wrong code was refused.
      const linked = await openPairingLink(contextOptions, code);
      await shootBothSchemes(linked, 'pair', size);
      await linked.getByLabel('Pairing code').fill('WRONG0CODE');
      await linked.getByRole('button', { name: 'Pair', exact: true }).click();
      await linked.getByRole('alert').filter({ hasText: /\S/ }).waitFor();
      await shootBothSchemes(linked, 'refused', size);
      await linked.context().close();

      const offline = await openPairingLink(contextOptions, code);
      relay.desktopLinked = false;
      try {
        await offline.getByRole('button', { name: 'Pair', exact: true }).click();
        await offline.getByRole('alert').filter({ hasText: 'Your desktop is not connected to the relay. Is the runtime running with --relay?' }).waitFor();
      } finally {
        relay.desktopLinked = true;
      }
      await shootBothSchemes(offline, 'offline', size);
      await offline.context().close();

      const page = await (await suite.browser.newContext(contextOptions)).newPage();
      await page.goto(`${relay.origin}/pair`);
      await page.getByText('This page is served by a relay').waitFor();
      await shootBothSchemes(page, 'no-link', size);
      await page.context().close();
    }
  }, 240_000);
});
