import crypto from 'node:crypto';
import tls from 'node:tls';
import acme from 'acme-client';
import type { Logger } from '../../runtime/log';
import { AcmeCertificateError } from './acmeCertificateError';
import { AcmeHttpHooks } from './acmeHttp';
import { acmeRetryDelay, type RetryDelays } from './acmeRetryDelay';
import { AlpnChallenges, type AlpnChallenge } from './alpnChallenges';
import { AcmeCertificateFiles, type StoredCertificate } from './certificateFiles';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface DesktopCertificatesOptions {
  /** The ACME directory, e.g. Let's Encrypt's production one. */
  directoryUrl: string;
  /** What the certificate covers: the desktop's app and preview names on the relay (`<desktopId>.HOST`, `p-<desktopId>.HOST`). */
  names: string[];
  dataDir: string;
  /** The account's contact, if the user gave one (the CA mails expiry warnings there). */
  contactEmail?: string;
  /** PEM of the CAs trusted for the ACME server's HTTPS instead of Node's roots (tests: their ACME server's). */
  caBundle?: string;
  log: Logger;
  now?: () => number;
  /** Renew when the certificate has less than this left (30 days). */
  renewBeforeMs?: number;
  /** How often the certificate's age is checked (12 h). */
  checkIntervalMs?: number;
  /** Delays between failed attempts: doubling from `firstMs` (5 min) up to `maxMs` (6 h), with jitter. */
  retryDelays?: Partial<RetryDelays>;
  /** How often a pending authorization or order is polled (acme-client's backoff: 2 s doubling to 30 s, 10 times). */
  poll?: { firstMs: number; maxMs: number; attempts: number };
  /** How long the directory may take to answer before the ACME server counts as down (30 s). */
  probeTimeoutMs?: number;
}

/** The certificate being served: its key and chain (leaf first), its names and expiry. */
export interface ServedCertificate extends StoredCertificate {
  names: string[];
  notAfter: Date;
  secureContext: tls.SecureContext;
}

export type RenewalOutcome = 'kept' | 'issued';

const DNS_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/;

/**
 * RLY-7: the desktop's TLS certificate for its names on the relay, whose private key never leaves
 * the desktop. It is read from the data folder, ordered by ACME (TLS-ALPN-01: the relay routes
 * the CA's validation connection by SNI to this desktop like any other) when missing or within
 * 30 days of expiry, and renewed on a timer. A failed attempt is logged with its reason and
 * retried with backoff; the current certificate is served meanwhile.
 */
export class DesktopCertificates {
  private readonly names: string[];
  private readonly files: AcmeCertificateFiles;
  private readonly challenges = new AlpnChallenges();
  private readonly now: () => number;
  private readonly renewBeforeMs: number;
  private readonly checkIntervalMs: number;
  private readonly retryDelays: RetryDelays;
  private served: ServedCertificate | null = null;
  private renewal: Promise<RenewalOutcome> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private failures = 0;
  private stopped = false;

  constructor(private readonly options: DesktopCertificatesOptions) {
    this.names = [...new Set(options.names.map((name) => name.toLowerCase()))];
    const bad = this.names.filter((name) => !DNS_NAME.test(name));
    if (this.names.length === 0 || bad.length > 0)
      throw new Error(
        `A certificate needs DNS names (no wildcards, no addresses); not usable: ${JSON.stringify(bad.length > 0 ? bad : options.names)}`,
      );
    if (!URL.canParse(options.directoryUrl))
      throw new Error(`Not an ACME directory URL: ${JSON.stringify(options.directoryUrl)}`);
    this.files = new AcmeCertificateFiles(options.dataDir, options.directoryUrl);
    this.now = options.now ?? Date.now;
    this.renewBeforeMs = options.renewBeforeMs ?? 30 * DAY_MS;
    this.checkIntervalMs = options.checkIntervalMs ?? DAY_MS / 2;
    this.retryDelays = { firstMs: 5 * 60_000, maxMs: 6 * 60 * 60_000, ...options.retryDelays };
    this.served = this.loadStored();
  }

  /** Checks now, then every `checkIntervalMs` (after a failure: sooner, with backoff). */
  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops the timer. An order under way finishes in the background (its certificate is still stored). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The certificate being served, or null before the first one is issued. */
  current(): ServedCertificate | null {
    return this.served;
  }

  /** The context for a TLS handshake naming `serverName`, or null for a name the certificate is not for. */
  secureContextFor(serverName: string): tls.SecureContext | null {
    return this.served && this.names.includes(serverName.toLowerCase()) ? this.served.secureContext : null;
  }

  /** RFC 8737: the certificate to answer an `acme-tls/1` handshake for `serverName` with, while its authorization is pending; else null. */
  alpnChallengeFor(serverName: string): AlpnChallenge | null {
    return this.challenges.for(serverName);
  }

  /** Orders a certificate if none is stored or the current one is due; concurrent calls share one order. Throws AcmeCertificateError. */
  renewIfDue(): Promise<RenewalOutcome> {
    if (!this.isDue()) return Promise.resolve('kept');
    this.renewal ??= this.order().finally(() => (this.renewal = null));
    return this.renewal;
  }

  private isDue(): boolean {
    return this.served === null || this.served.notAfter.getTime() - this.now() <= this.renewBeforeMs;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.check(), delayMs);
    // The runtime's servers keep the process alive; this timer alone must not.
    this.timer.unref();
  }

  private async check(): Promise<void> {
    try {
      await this.renewIfDue();
      this.failures = 0;
      this.schedule(this.checkIntervalMs);
    } catch (error) {
      this.failures++;
      const retryAfterMs = error instanceof AcmeCertificateError ? (error.retryAfterMs ?? 0) : 0;
      const delayMs = Math.max(retryAfterMs, acmeRetryDelay(this.failures, this.retryDelays));
      const code = error instanceof AcmeCertificateError ? error.code : 'acme-internal';
      const fields = {
        code,
        names: this.names.join(','),
        attempt: this.failures,
        retryInMs: delayMs,
        servingUntil: this.served?.notAfter.toISOString() ?? null,
      };
      const message = `acme: could not get a certificate (${error instanceof Error ? error.message : String(error)})`;
      if (error instanceof AcmeCertificateError) this.options.log.warn(message, fields);
      else this.options.log.error(message, fields, error);
      this.schedule(delayMs);
    }
  }

  private async order(): Promise<RenewalOutcome> {
    const hooks = new AcmeHttpHooks(this.options.directoryUrl, this.options.caBundle, this.now);
    try {
      await hooks.probeDirectory(this.options.probeTimeoutMs ?? 30_000);
      const poll = this.options.poll ?? { firstMs: 2_000, maxMs: 30_000, attempts: 10 };
      const keyPem = (await acme.crypto.createPrivateEcdsaKey()).toString();
      const [, csr] = await acme.crypto.createCsr({ commonName: this.names[0], altNames: this.names }, keyPem);
      let chainPem: string;
      try {
        const client = await this.accountClient(poll, hooks);
        chainPem = await client.auto({
          csr,
          challengePriority: ['tls-alpn-01'],
          // NOTE: the CA reaches this desktop through the relay; acme-client's own check would dial port 443 of the name from here, which proves nothing.
          skipChallengeVerification: true,
          challengeCreateFn: (authz, challenge, keyAuthorization) =>
            this.offerChallenge(authz, challenge, keyAuthorization),
          challengeRemoveFn: async (authz) => this.challenges.remove(authz.identifier.value),
        });
      } catch (error) {
        throw failureOf(error, hooks);
      }
      const issued = servedCertificate({ keyPem, chainPem }, this.names, this.now());
      if (typeof issued === 'string')
        throw new AcmeCertificateError(
          'acme-bad-certificate',
          `The ACME server issued an unusable certificate: ${issued}`,
        );
      this.files.writeCertificate({ keyPem, chainPem });
      this.served = issued;
      this.options.log.info('acme: certificate issued', {
        names: this.names.join(','),
        notAfter: issued.notAfter.toISOString(),
        directory: this.options.directoryUrl,
      });
      return 'issued';
    } finally {
      hooks.release();
    }
  }

  private async offerChallenge(
    authz: { identifier: { value: string } },
    challenge: { type: string },
    keyAuthorization: string,
  ): Promise<void> {
    const name = authz.identifier.value;
    if (challenge.type !== 'tls-alpn-01')
      throw new AcmeCertificateError(
        'acme-refused',
        `The ACME server offers no tls-alpn-01 challenge for ${name} (only ${challenge.type})`,
      );
    const [keyPem, certPem] = await acme.crypto.createAlpnCertificate(
      authz as Parameters<typeof acme.crypto.createAlpnCertificate>[0],
      keyAuthorization,
      await acme.crypto.createPrivateEcdsaKey(),
    );
    this.challenges.put(name, keyPem.toString(), certPem.toString());
  }

  /** A client on the stored account, else on a new one (its key stored first: an account registered with a key that was then lost could not be used again). */
  private async accountClient(
    poll: { firstMs: number; maxMs: number; attempts: number },
    hooks: AcmeHttpHooks,
  ): Promise<acme.Client> {
    const { keyPem, stored } = await this.accountKey();
    const accountUrl = stored ? this.files.readAccountUrl() : null;
    const client = new acme.Client({
      directoryUrl: this.options.directoryUrl,
      accountKey: keyPem,
      accountUrl: accountUrl ?? undefined,
      backoffMin: poll.firstMs,
      backoffMax: poll.maxMs,
      backoffAttempts: poll.attempts,
    });
    if (accountUrl !== null) return client;
    // NOTE: a known key is looked up rather than registered again: acme-client answers a CA's
    // "account exists" by resending the registration as an update, which CAs may refuse.
    const existing = stored
      ? await client.createAccount({ onlyReturnExisting: true }).then(
          () => true,
          () => false,
        )
      : false;
    // Only what comes next says why an order failed, not this lookup's "no such account".
    hooks.forgetProblems();
    if (!existing)
      await client.createAccount({
        termsOfServiceAgreed: true,
        contact: this.options.contactEmail ? [`mailto:${this.options.contactEmail}`] : undefined,
      });
    this.files.writeAccountUrl(client.getAccountUrl());
    return client;
  }

  private async accountKey(): Promise<{ keyPem: string; stored: boolean }> {
    const stored = this.files.readAccountKey();
    if (stored !== null) {
      if (isPrivateKey(stored)) return { keyPem: stored, stored: true };
      const aside = this.files.setAsideAccountKey();
      this.options.log.warn('acme: the stored account key is unusable; it is kept aside and a new account made', {
        file: aside,
      });
    }
    const keyPem = (await acme.crypto.createPrivateEcdsaKey()).toString();
    this.files.writeAccountKey(keyPem);
    return { keyPem, stored: false };
  }

  private loadStored(): ServedCertificate | null {
    let stored: StoredCertificate | null;
    try {
      stored = this.files.readCertificate();
    } catch (error) {
      this.options.log.error(
        'acme: could not read the stored certificate; a new one will be ordered',
        { dir: this.files.dir },
        error,
      );
      return null;
    }
    if (stored === null) return null;
    const loaded = servedCertificate(stored, this.names, this.now());
    if (typeof loaded !== 'string') return loaded;
    this.options.log.warn(`acme: the stored certificate is not used (${loaded}); a new one will be ordered`, {
      dir: this.files.dir,
    });
    return null;
  }
}

function isPrivateKey(pem: string): boolean {
  try {
    crypto.createPrivateKey(pem);
    return true;
  } catch {
    return false;
  }
}

/** The certificate ready to serve, or why it cannot be: not PEM, key and leaf apart, a name missing, expired. */
function servedCertificate(stored: StoredCertificate, names: string[], now: number): ServedCertificate | string {
  let leaf: crypto.X509Certificate;
  let secureContext: tls.SecureContext;
  try {
    leaf = new crypto.X509Certificate(stored.chainPem);
    if (!leaf.checkPrivateKey(crypto.createPrivateKey(stored.keyPem))) return 'its key is not the certificate’s';
    secureContext = tls.createSecureContext({ key: stored.keyPem, cert: stored.chainPem });
  } catch (error) {
    return `not a certificate and key: ${error instanceof Error ? error.message : String(error)}`;
  }
  const missing = names.filter((name) => leaf.checkHost(name, { wildcards: false }) === undefined);
  if (missing.length > 0) return `it does not cover ${missing.join(', ')}`;
  const notAfter = new Date(leaf.validTo);
  if (notAfter.getTime() <= now) return `it expired at ${notAfter.toISOString()}`;
  return { ...stored, names, notAfter, secureContext };
}

/** acme-client's errors carry only text: the problem the server sent last says what went wrong. */
function failureOf(error: unknown, hooks: AcmeHttpHooks): AcmeCertificateError {
  if (error instanceof AcmeCertificateError) return error;
  const text = error instanceof Error ? error.message : String(error);
  const problem = hooks.lastProblem();
  if (problem?.type.endsWith(':rateLimited'))
    return new AcmeCertificateError(
      'acme-rate-limited',
      `The ACME server rate-limits this desktop: ${problem.detail || text}`,
      problem.retryAfterMs,
      { cause: error },
    );
  if (problem?.fromValidation)
    return new AcmeCertificateError(
      'acme-validation-failed',
      `The ACME server could not validate the name through the relay (${problem.type}): ${problem.detail || text}`,
      null,
      { cause: error },
    );
  if (problem)
    return new AcmeCertificateError(
      'acme-refused',
      `The ACME server refused (${problem.type}): ${problem.detail || text}`,
      problem.retryAfterMs,
      { cause: error },
    );
  return new AcmeCertificateError('acme-unreachable', `The ACME exchange broke off: ${text}`, null, { cause: error });
}
