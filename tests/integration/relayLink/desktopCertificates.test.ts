import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AcmeCertificateError } from '../../../server/relayLink/acme/acmeCertificateError';
import {
  DesktopCertificates,
  type DesktopCertificatesOptions,
} from '../../../server/relayLink/acme/desktopCertificates';
import type { Logger, LogFields } from '../../../server/runtime/log';
import { startAcmeTestServer, type AcmeTestServer } from '../../fixtures/acmeTestServer';
import { loopbackCertificate } from '../../fixtures/loopbackCertificate';
import { steppingClock } from '../../fixtures/steppingClock';
import { makeTempDir } from '../../fixtures/tempDir';
import { startTlsTerminationStandIn, type TlsTerminationStandIn } from '../../fixtures/tlsTerminationStandIn';
import { waitUntil } from '../../fixtures/waitUntil';

const DAY_MS = 24 * 60 * 60 * 1000;
const NAMES = ['d7xkq2.relay.localhost', 'p-d7xkq2.relay.localhost'];
/** Each order is a few round trips to pebble and its validation connections: seconds, more on a loaded machine. */
const ORDER_TESTS = { timeout: 200_000 };

let acmeServer: AcmeTestServer;
let termination: TlsTerminationStandIn;

beforeAll(async () => {
  termination = await startTlsTerminationStandIn();
  acmeServer = await startAcmeTestServer({ tlsPort: termination.port });
});

afterAll(async () => {
  await acmeServer?.stop();
  await termination?.close();
});

interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields: LogFields;
}

function recordingLog(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const record =
    (level: LogLine['level']) =>
    (message: string, fields: LogFields = {}) =>
      lines.push({ level, message, fields });
  return { lines, info: record('info'), warn: record('warn'), error: record('error') };
}

/** Certificates for NAMES from the test ACME server, answered by the stand-in TLS termination. */
function desktopCertificates(dataDir: string, options: Partial<DesktopCertificatesOptions> = {}): DesktopCertificates {
  const certificates = new DesktopCertificates({
    directoryUrl: acmeServer.directoryUrl,
    caBundle: acmeServer.caBundle,
    names: NAMES,
    dataDir,
    log: recordingLog(),
    poll: { firstMs: 100, maxMs: 1_000, attempts: 60 },
    ...options,
  });
  termination.serve(certificates);
  return certificates;
}

/** A TLS client trusting only pebble's root, as a phone trusts the real CA's: the chain and the name must both check out. */
function handshake(serverName: string): Promise<{ authorized: boolean; error: string | undefined; altNames: string }> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect(
      { port: termination.port, host: '127.0.0.1', servername: serverName, ca: acmeServer.rootPem },
      () => {
        resolve({
          authorized: socket.authorized,
          error: socket.authorizationError?.message,
          altNames: socket.getPeerCertificate().subjectaltname ?? '',
        });
        socket.destroy();
      },
    );
    socket.once('error', reject);
  });
}

function acmeFiles(dataDir: string): Record<string, { mode: number; text: string }> {
  const [directoryFolder, ...others] = fs.readdirSync(path.join(dataDir, 'acme'));
  expect(others).toEqual([]);
  const dir = path.join(dataDir, 'acme', directoryFolder!);
  expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
  return Object.fromEntries(
    fs
      .readdirSync(dir)
      .map((name) => [
        name,
        { mode: fs.statSync(path.join(dir, name)).mode & 0o777, text: fs.readFileSync(path.join(dir, name), 'utf8') },
      ]),
  );
}

describe('RLY-7 the desktop gets and renews the certificate for its relay names by ACME (TLS-ALPN-01)', () => {
  it(
    'RLY-7 a certificate for both names comes from the ACME server through acme-tls/1 handshakes, is stored owner-only and is reused after a restart',
    ORDER_TESTS,
    async () => {
      const dataDir = makeTempDir();
      const first = desktopCertificates(dataDir);
      expect(first.current()).toBeNull();
      expect(first.secureContextFor(NAMES[0]!)).toBeNull();
      const handshakesBefore = termination.challengeHandshakes();

      await expect(first.renewIfDue()).resolves.toBe('issued');

      // The CA validated each name by connecting with acme-tls/1; the challenges are gone now.
      expect(termination.challengeHandshakes()).toBeGreaterThanOrEqual(handshakesBefore + NAMES.length);
      for (const name of NAMES) expect(first.alpnChallengeFor(name)).toBeNull();
      for (const name of NAMES) {
        const seen = await handshake(name);
        expect(seen, name).toEqual({
          authorized: true,
          error: undefined,
          altNames: expect.stringContaining(`DNS:${name}`),
        });
      }
      expect(first.secureContextFor('other.relay.localhost')).toBeNull();
      const issued = acmeFiles(dataDir);
      expect(Object.keys(issued).sort()).toEqual([
        'account-key.pem',
        'account-url.txt',
        'certificate-key.pem',
        'certificate.pem',
      ]);
      for (const [name, file] of Object.entries(issued)) expect(file.mode, name).toBe(0o600);
      expect(issued['certificate.pem']!.text).toBe(first.current()!.chainPem);

      // A restarted runtime serves the stored certificate and orders nothing while it is valid.
      first.stop();
      const restarted = desktopCertificates(dataDir);
      expect(restarted.current()?.chainPem).toBe(first.current()!.chainPem);
      const handshakesAtRestart = termination.challengeHandshakes();
      await expect(restarted.renewIfDue()).resolves.toBe('kept');
      expect(termination.challengeHandshakes()).toBe(handshakesAtRestart);
      expect(acmeFiles(dataDir)).toEqual(issued);
      expect((await handshake(NAMES[1]!)).authorized).toBe(true);
    },
  );

  it(
    'RLY-7 a certificate within 30 days of its expiry is renewed by the timer with a new key, on the same account',
    ORDER_TESTS,
    async () => {
      const dataDir = makeTempDir();
      const clock = steppingClock();
      const log = recordingLog();
      const certificates = desktopCertificates(dataDir, { now: clock.now, log, checkIntervalMs: 50 });
      await certificates.renewIfDue();
      const old = certificates.current()!;
      const oldFiles = acmeFiles(dataDir);

      // 31 days left: the timer checks and keeps it.
      clock.advance(old.notAfter.getTime() - clock.now() - 31 * DAY_MS);
      await expect(certificates.renewIfDue()).resolves.toBe('kept');

      clock.advance(2 * DAY_MS);
      certificates.start();
      try {
        await waitUntil(
          () => certificates.current() !== old,
          () => `the certificate is renewed; log: ${JSON.stringify(log.lines)}`,
          { timeoutMs: 50_000 },
        );
      } finally {
        certificates.stop();
      }
      const renewed = certificates.current()!;
      expect(new X509Certificate(renewed.chainPem).serialNumber).not.toBe(
        new X509Certificate(old.chainPem).serialNumber,
      );
      expect(renewed.notAfter.getTime()).toBeGreaterThanOrEqual(old.notAfter.getTime());
      expect(renewed.keyPem).not.toBe(old.keyPem);
      const files = acmeFiles(dataDir);
      expect(files['account-key.pem']).toEqual(oldFiles['account-key.pem']);
      expect(files['account-url.txt']).toEqual(oldFiles['account-url.txt']);
      expect(files['certificate.pem']!.text).toBe(renewed.chainPem);
      expect(files['certificate-key.pem']!.text).toBe(renewed.keyPem);
      for (const name of NAMES) expect((await handshake(name)).authorized, name).toBe(true);
      expect(log.lines.filter((line) => line.level !== 'info')).toEqual([]);
    },
  );

  it(
    'RLY-7 a refused validation gives a clear error, keeps serving the old certificate and is retried with backoff until it succeeds',
    ORDER_TESTS,
    async () => {
      const dataDir = makeTempDir();
      const clock = steppingClock();
      const log = recordingLog();
      const certificates = desktopCertificates(dataDir, {
        now: clock.now,
        log,
        retryDelays: { firstMs: 200, maxMs: 400 },
      });
      await certificates.renewIfDue();
      const old = certificates.current()!;
      const oldFiles = acmeFiles(dataDir);
      clock.advance(old.notAfter.getTime() - clock.now() - 10 * DAY_MS);

      termination.answerChallenges('wrong-certificate');
      try {
        const failure = await certificates.renewIfDue().then(
          () => null,
          (error: unknown) => error,
        );
        expect(failure).toBeInstanceOf(AcmeCertificateError);
        expect((failure as AcmeCertificateError).code).toBe('acme-validation-failed');
        expect((failure as AcmeCertificateError).message).toMatch(
          /^The ACME server could not validate the name through the relay \(urn:ietf:params:acme:error:[a-z]+\): Incorrect validation certificate for tls-alpn-01 challenge/,
        );
        expect((failure as AcmeCertificateError).message).toMatch(/relay\.localhost/);
        expect(certificates.current()).toBe(old);
        expect(acmeFiles(dataDir)).toEqual(oldFiles);
        expect((await handshake(NAMES[0]!)).authorized).toBe(true);

        // On the timer, each failure is logged with its reason and the next attempt comes later.
        certificates.start();
        await waitUntil(
          () => log.lines.filter((line) => line.level === 'warn').length >= 2,
          'two failed attempts are logged',
          { timeoutMs: 60_000 },
        );
      } finally {
        termination.answerChallenges('challenge');
      }
      try {
        const [firstWarning, secondWarning] = log.lines.filter((line) => line.level === 'warn');
        expect(firstWarning).toEqual({
          level: 'warn',
          message: expect.stringMatching(/^acme: could not get a certificate \(The ACME server could not validate/),
          fields: {
            code: 'acme-validation-failed',
            names: NAMES.join(','),
            attempt: 1,
            retryInMs: expect.any(Number),
            servingUntil: old.notAfter.toISOString(),
          },
        });
        expect(secondWarning!.fields.attempt).toBe(2);
        await waitUntil(() => certificates.current() !== old, 'a later attempt gets the new certificate', {
          timeoutMs: 60_000,
        });
      } finally {
        certificates.stop();
      }
      expect(log.lines.at(-1)).toEqual({
        level: 'info',
        message: 'acme: certificate issued',
        fields: expect.objectContaining({ names: NAMES.join(',') }),
      });
    },
  );

  it('RLY-7 an ACME server that does not answer is reported as unreachable and nothing is written', async () => {
    const dataDir = makeTempDir();
    // A port that takes connections and drops them at once, like a CA behind a broken proxy.
    const dropping = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve));
    const directoryUrl = `https://127.0.0.1:${(dropping.address() as net.AddressInfo).port}/dir`;
    try {
      const certificates = desktopCertificates(dataDir, { directoryUrl });
      const failure = await certificates.renewIfDue().then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(AcmeCertificateError);
      expect(failure).toMatchObject({
        code: 'acme-unreachable',
        message: expect.stringMatching(new RegExp(`^The ACME directory ${directoryUrl} did not answer: \\S`)),
      });
    } finally {
      await new Promise((resolve) => dropping.close(resolve));
    }
    expect(fs.existsSync(path.join(dataDir, 'acme'))).toBe(false);
  });

  it('RLY-7 a CA that rate-limits the desktop is reported as such, with its Retry-After', ORDER_TESTS, async () => {
    // A directory whose every registration is refused as Let's Encrypt refuses one over its limits.
    const tlsFiles = loopbackCertificate();
    const requests: string[] = [];
    const refusing = https.createServer(
      { key: fs.readFileSync(tlsFiles.key), cert: fs.readFileSync(tlsFiles.cert) },
      (request, response) => {
        requests.push(`${request.method} ${request.url}`);
        request.resume();
        const base = `https://127.0.0.1:${(refusing.address() as net.AddressInfo).port}`;
        if (request.url === '/dir')
          return response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(
              JSON.stringify({ newNonce: `${base}/nonce`, newAccount: `${base}/account`, newOrder: `${base}/order` }),
            );
        if (request.url === '/nonce')
          return response.writeHead(200, { 'replay-nonce': `nonce-${requests.length}` }).end();
        response.writeHead(429, {
          'content-type': 'application/problem+json',
          'retry-after': '1',
          'replay-nonce': `nonce-${requests.length}`,
        });
        response.end(
          JSON.stringify({
            type: 'urn:ietf:params:acme:error:rateLimited',
            detail: 'too many new registrations from this address',
            status: 429,
          }),
        );
      },
    );
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      const directoryUrl = `https://127.0.0.1:${(refusing.address() as net.AddressInfo).port}/dir`;
      const certificates = desktopCertificates(makeTempDir(), {
        directoryUrl,
        caBundle: fs.readFileSync(tlsFiles.cert, 'utf8'),
      });
      const failure = await certificates.renewIfDue().then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(AcmeCertificateError);
      expect(failure).toMatchObject({
        code: 'acme-rate-limited',
        message: 'The ACME server rate-limits this desktop: too many new registrations from this address',
        retryAfterMs: 1000,
      });
      expect(requests).toContain('POST /account');
    } finally {
      await new Promise((resolve) => refusing.close(resolve));
      fs.rmSync(tlsFiles.dir, { recursive: true, force: true });
    }
  });

  it(
    'RLY-7 stored files that are not a certificate and its key are reported and replaced by a new certificate, and an unusable account key is kept aside',
    ORDER_TESTS,
    async () => {
      const dataDir = makeTempDir();
      const first = desktopCertificates(dataDir);
      await first.renewIfDue();
      const dir = path.join(dataDir, 'acme', fs.readdirSync(path.join(dataDir, 'acme'))[0]!);
      fs.writeFileSync(path.join(dir, 'certificate-key.pem'), 'not a key');
      fs.writeFileSync(path.join(dir, 'account-key.pem'), 'not a key either');

      const log = recordingLog();
      const restarted = desktopCertificates(dataDir, { log });
      expect(restarted.current()).toBeNull();
      expect(log.lines).toEqual([
        {
          level: 'warn',
          message: expect.stringMatching(
            /^acme: the stored certificate is not used \(not a certificate and key: .*\); a new one will be ordered$/,
          ),
          fields: { dir },
        },
      ]);
      await expect(restarted.renewIfDue()).resolves.toBe('issued');
      expect(fs.readFileSync(path.join(dir, 'account-key.pem.unusable'), 'utf8')).toBe('not a key either');
      expect(log.lines[1]).toMatchObject({
        level: 'warn',
        message: 'acme: the stored account key is unusable; it is kept aside and a new account made',
      });
      expect((await handshake(NAMES[0]!)).authorized).toBe(true);
    },
  );
});
