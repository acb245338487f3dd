import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { describe, expect, it } from 'vitest';
import { parseCli } from '../../../server/cli';
import { desktopForServerName } from '../../../relay/passthroughServer';
import { parseRelayFlags } from '../../../relay/relayFlags';
import { relayNamesFor } from '../../../server/relayLink/relayNameServer';
import {
  ACME_TLS_ALPN,
  certificateFiles,
  chooseSecureContext,
  type RelayCertificates,
} from '../../../server/relayLink/relayTls';

const DESKTOP = 'abcdefghijklmnopqrstuvwxyz234567';

describe('RLY-6 which connections a TLS name reaches', () => {
  it('RLY-6 a node routes only a desktop’s two names under its own host', () => {
    expect(desktopForServerName(`${DESKTOP}.relay.example`, 'relay.example')).toBe(DESKTOP);
    expect(desktopForServerName(`p-${DESKTOP}.relay.example`, 'Relay.Example')).toBe(DESKTOP);
    for (const name of [
      'relay.example',
      `x.${DESKTOP}.relay.example`,
      `${DESKTOP}.relay.example.evil`,
      `${DESKTOP}.other.example`,
      `q-${DESKTOP}.relay.example`,
      `${DESKTOP.slice(1)}.relay.example`,
      `p-.relay.example`,
      `${DESKTOP}xrelay.example`,
    ]) {
      expect(desktopForServerName(name, 'relay.example')).toBeNull();
    }
  });

  it('RLY-6 the desktop’s names and origins follow --relay and the relay’s TLS port', () => {
    expect(relayNamesFor(new URL('https://Relay.Example'), DESKTOP, 443)).toEqual({
      appOrigin: `https://${DESKTOP}.relay.example`,
      previewOrigin: `https://p-${DESKTOP}.relay.example`,
      serverNames: [`${DESKTOP}.relay.example`, `p-${DESKTOP}.relay.example`],
    });
    expect(relayNamesFor(new URL('http://relay.localhost:8080'), DESKTOP, 9443).appOrigin).toBe(
      `https://${DESKTOP}.relay.localhost:9443`,
    );
  });

  it('RLY-6 the secure context is chosen by name, and by ALPN for an ACME challenge (the hook for the ACME TLS-ALPN challenge)', () => {
    const site = tls.createSecureContext();
    const challenge = tls.createSecureContext();
    const withAcme: RelayCertificates = {
      contextFor: (name) => (name === 'a.example' ? site : null),
      alpnChallengeFor: (name) => (name === 'a.example' ? challenge : null),
    };
    expect(chooseSecureContext(withAcme, 'a.example', ['h2', 'http/1.1'])).toEqual({ context: site, acme: false });
    expect(chooseSecureContext(withAcme, 'a.example', [ACME_TLS_ALPN])).toEqual({ context: challenge, acme: true });
    expect(chooseSecureContext(withAcme, 'b.example', [])).toBeNull();
    expect(chooseSecureContext(withAcme, 'b.example', [ACME_TLS_ALPN])).toBeNull();
    expect(chooseSecureContext(withAcme, null, [])).toBeNull();
    // Without an ACME client, a challenge connection is closed rather than served the site's certificate.
    expect(chooseSecureContext({ contextFor: () => site }, 'a.example', [ACME_TLS_ALPN])).toBeNull();
  });
});

describe('RLY-6 the passthrough flags', () => {
  const relayArgs = ['--relay', 'https://relay.example.org'];
  it('RLY-6 --relay needs --relay-cert and --relay-key together, or --acme-directory; --relay-tls-port defaults to 443', () => {
    expect(() => parseCli([...relayArgs], {}, os.tmpdir())).toThrow(/--relay needs a certificate/);
    expect(parseCli([], {}, os.tmpdir()).relayTls).toBeNull();
    const parsed = parseCli([...relayArgs, '--relay-cert', 'c.pem', '--relay-key', 'k.pem'], {}, os.tmpdir()).relayTls;
    expect(parsed).toEqual({ files: { certFile: path.resolve('c.pem'), keyFile: path.resolve('k.pem') }, port: 443 });
    // RLY-7: or by ACME, on the same port flag; not both.
    expect(
      parseCli(
        [...relayArgs, '--acme-directory', 'https://ca.example/dir', '--relay-tls-port', '8443'],
        {},
        os.tmpdir(),
      ).relayTls,
    ).toEqual({ files: null, port: 8443 });
    expect(() =>
      parseCli(
        [...relayArgs, '--acme-directory', 'https://ca.example/dir', '--relay-cert', 'c', '--relay-key', 'k'],
        {},
        os.tmpdir(),
      ),
    ).toThrow(/not both/);
    expect(() => parseCli(['--acme-directory', 'https://ca.example/dir'], {}, os.tmpdir())).toThrow(/needs --relay/);
    expect(
      parseCli([...relayArgs, '--relay-cert', 'c', '--relay-key', 'k', '--relay-tls-port', '9443'], {}, os.tmpdir())
        .relayTls?.port,
    ).toBe(9443);
    expect(() => parseCli([...relayArgs, '--relay-cert', 'c'], {}, os.tmpdir())).toThrow(/together/);
    expect(() => parseCli(['--relay-cert', 'c', '--relay-key', 'k'], {}, os.tmpdir())).toThrow(/need --relay/);
    expect(() => parseCli([...relayArgs, '--relay-tls-port', '9443'], {}, os.tmpdir())).toThrow(/needs --relay-cert/);
    expect(() =>
      parseCli([...relayArgs, '--relay-cert', 'c', '--relay-key', 'k', '--relay-tls-port', '0'], {}, os.tmpdir()),
    ).toThrow(/--relay-tls-port/);
  });

  it('RLY-6 a node takes --tls-port', () => {
    const base = ['--public-url', 'https://relay.example', '--nats', 'nats://n:4222'];
    expect(parseRelayFlags(base).tlsPort).toBeUndefined();
    expect(parseRelayFlags([...base, '--tls-port', '443']).tlsPort).toBe(443);
    expect(() => parseRelayFlags([...base, '--tls-port', 'x'])).toThrow(/--tls-port/);
  });

  it('RLY-6 certificate files that are not a certificate and its key are a clear start-up error', () => {
    expect(() =>
      certificateFiles(path.join(os.tmpdir(), 'no-such-cert.pem'), path.join(os.tmpdir(), 'no-such-key.pem'), [
        'a.example',
      ]),
    ).toThrow(/--relay-cert and --relay-key must be/);
  });
});
