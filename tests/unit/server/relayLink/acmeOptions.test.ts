import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import acme from 'acme-client';
import { describe, expect, it } from 'vitest';
import { parseCli } from '../../../../server/cli';
import { DEFAULT_ACME_DIRECTORY } from '../../../../server/relayLink/acme/acmeCliOptions';
import { acmeRetryDelay } from '../../../../server/relayLink/acme/acmeRetryDelay';
import { relayNamesFor } from '../../../../server/relayLink/relayNameServer';
import { loopbackCertificate } from '../../../fixtures/loopbackCertificate';
import { makeTempDir } from '../../../fixtures/tempDir';

describe('RLY-7 the runtime is told where to get its relay certificate', () => {
  it("RLY-7 --acme-directory defaults to Let's Encrypt's production directory and takes any https URL", () => {
    expect(DEFAULT_ACME_DIRECTORY).toBe(acme.directory.letsencrypt.production);
    expect(parseCli([], {}, os.tmpdir()).acme).toEqual({ directoryUrl: DEFAULT_ACME_DIRECTORY, caBundle: null });
    expect(
      parseCli(
        ['--relay', 'https://relay.example.org', '--acme-directory', acme.directory.letsencrypt.staging],
        {},
        os.tmpdir(),
      ).acme.directoryUrl,
    ).toBe(acme.directory.letsencrypt.staging);
    expect(() =>
      parseCli(
        ['--relay', 'https://relay.example.org', '--acme-directory', 'http://127.0.0.1:14000/dir'],
        {},
        os.tmpdir(),
      ),
    ).toThrow('--acme-directory must be an https:// URL, not "http://127.0.0.1:14000/dir".');
    expect(() =>
      parseCli(['--relay', 'https://relay.example.org', '--acme-directory', 'not a url'], {}, os.tmpdir()),
    ).toThrow(/--acme-directory must be an https:\/\/ URL/);
  });

  it('RLY-7 --acme-ca reads the PEM certificates trusted for the ACME server, and refuses a file that holds none', () => {
    const tls = loopbackCertificate();
    try {
      expect(parseCli(['--acme-ca', tls.cert], {}, os.tmpdir()).acme.caBundle).toBe(fs.readFileSync(tls.cert, 'utf8'));
      expect(() => parseCli(['--acme-ca', tls.key], {}, os.tmpdir())).toThrow(
        `--acme-ca: "${tls.key}" holds no PEM certificate.`,
      );
    } finally {
      fs.rmSync(tls.dir, { recursive: true, force: true });
    }
    const missing = path.join(makeTempDir(), 'missing.pem');
    expect(() => parseCli(['--acme-ca', missing], {}, os.tmpdir())).toThrow(
      `--acme-ca: cannot read "${missing}" (ENOENT).`,
    );
  });

  it("RLY-7 the certificate covers the desktop's app name and its preview name on the relay", () => {
    expect(relayNamesFor(new URL('https://relay.example.org'), 'abc234', 443).serverNames).toEqual([
      'abc234.relay.example.org',
      'p-abc234.relay.example.org',
    ]);
  });

  it('RLY-7 failed attempts are retried after doubling delays, capped, with jitter either side', () => {
    const delays = { firstMs: 5 * 60_000, maxMs: 6 * 60 * 60_000 };
    const middle = () => 0.5;
    expect([1, 2, 3, 4, 10, 1000].map((failures) => acmeRetryDelay(failures, delays, middle))).toEqual([
      300_000, 600_000, 1_200_000, 2_400_000, 21_600_000, 21_600_000,
    ]);
    expect(acmeRetryDelay(1, delays, () => 0)).toBe(225_000);
    expect(acmeRetryDelay(1, delays, () => 1)).toBe(375_000);
  });
});
