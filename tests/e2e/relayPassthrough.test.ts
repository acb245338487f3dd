// RLY-6 in a real browser: a Chromium whose only extra trust is the test CA (in the NSS database
// of its own HOME) loads the desktop's relay name through a relay node's TLS port, and the app the
// desktop serves itself shows its pairing screen. The relay holds no key for that name.
import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../fixtures/browser';
import { homeTrusting } from '../fixtures/nssTrust';
import { pairThroughLink } from './appHarness';
import { startPassthroughRelay, type PassthroughRelay } from '../fixtures/relay/passthroughRelay';

let relay: PassthroughRelay;
let home: string;
let browser: Browser;

beforeAll(async () => {
  relay = await startPassthroughRelay();
  home = homeTrusting(relay.certs.caFile);
  browser = await launchChromium([], { ...process.env, HOME: home });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await relay?.stop();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

describe('RLY-6 the desktop’s own name through the relay, in Chromium', () => {
  it('RLY-6 loads https://<desktopId>.relay.localhost from the desktop over the relay’s TLS port, shows the pairing screen and pairs there', async () => {
    const page = await browser.newPage();
    const response = await page.goto(relay.names.appOrigin + '/');
    expect(response?.status()).toBe(200);
    // The certificate Chromium accepted is the desktop's, for its relay name, from the test CA.
    const security = await response!.securityDetails();
    expect(security?.subjectName).toBe(relay.names.serverNames[0]);
    expect(security?.issuer).toBe('HB Code test CA');
    await page.getByRole('heading', { name: 'Pair this device' }).waitFor();

    // The relay pairing link start-up prints now names the desktop's own origin: plain pairing over TLS.
    const { code } = relay.running.runtime.auth.createPairingCode();
    await pairThroughLink(page, relay.names.appOrigin, code);
    expect(page.url()).toBe(`${relay.names.appOrigin}/`);
    expect(relay.running.runtime.auth.devices(null).map((d) => d.name)).toHaveLength(1);
    await page.close();
  }, 90_000);
});
