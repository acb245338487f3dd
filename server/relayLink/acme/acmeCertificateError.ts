/**
 * Why the desktop could not get a certificate (RLY-7). Each is retried with backoff while the
 * current certificate, if any, keeps being served.
 * - `acme-unreachable`: the ACME directory did not answer (network, DNS, TLS trust, server down).
 * - `acme-rate-limited`: the CA refused for now (`rateLimited`); its Retry-After is honoured.
 * - `acme-validation-failed`: the CA's `acme-tls/1` connection to one of the names did not get the
 *   challenge certificate (the relay does not route the name here, or another server answered).
 * - `acme-refused`: any other refusal by the CA (account, order, finalization).
 * - `acme-bad-certificate`: the CA sent a chain that does not cover the names or match the key.
 */
export type AcmeFailureCode =
  'acme-unreachable' | 'acme-rate-limited' | 'acme-validation-failed' | 'acme-refused' | 'acme-bad-certificate';

export class AcmeCertificateError extends Error {
  override readonly name = 'AcmeCertificateError';

  constructor(
    readonly code: AcmeFailureCode,
    message: string,
    /** The CA's Retry-After, when it sent one. */
    readonly retryAfterMs: number | null = null,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
