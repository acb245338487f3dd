import type { Logger } from '../../runtime/log';
import type { RelayCertificates } from '../relayTls';
import type { AcmeCliOptions } from './acmeCliOptions';
import { DesktopCertificates } from './desktopCertificates';

/** The desktop's names on a relay (RLY-7): the app at `<desktopId>.HOST`, its previews at `p-<desktopId>.HOST`. */
export function relayCertificateNames(relayUrl: URL, desktopId: string): string[] {
  return [`${desktopId}.${relayUrl.hostname}`, `p-${desktopId}.${relayUrl.hostname}`];
}

/**
 * The one entry point for the relay link's TLS termination (RLY-7): loads the desktop's stored
 * certificate for its relay names and keeps it current by ACME from `acme.directoryUrl`. Give the
 * result to the TLS server that takes the relay's raw connections; per connection it answers
 * `acme-tls/1` with `alpnChallengeFor(name)` and everything else with `secureContextFor(name)`.
 * Call `stop()` at shutdown. As tests/fixtures/tlsTerminationStandIn.ts does:
 *
 *   let acmeTls = false;
 *   new tls.TLSSocket(stream, { isServer: true,
 *     ALPNCallback: ({ protocols }) => (acmeTls = protocols.includes('acme-tls/1')) ? 'acme-tls/1' : undefined,
 *     SNICallback: (name, answer) => answer(null, (acmeTls ? certificates.alpnChallengeFor(name)?.secureContext : certificates.secureContextFor(name)) ?? undefined) });
 *
 * NOTE: this relies on OpenSSL choosing ALPN before the certificate, which it does in TLS 1.3 (the
 * ACME servers' validation speaks it); an `acme-tls/1` connection ends after its handshake.
 */
export function startDesktopCertificates(acme: AcmeCliOptions, relayUrl: URL, desktopId: string, dataDir: string, log: Logger): DesktopCertificates {
  const certificates = new DesktopCertificates({
    directoryUrl: acme.directoryUrl,
    caBundle: acme.caBundle ?? undefined,
    names: relayCertificateNames(relayUrl, desktopId),
    dataDir,
    log,
  });
  certificates.start();
  return certificates;
}

/** RLY-6, RLY-7: the relay TLS termination's certificates, by ACME from `acme.directoryUrl`, for the desktop's relay names; `start()` once the link is up. */
export function acmeRelayCertificates(acme: AcmeCliOptions, serverNames: readonly string[], dataDir: string, log: Logger): RelayCertificates {
  const certificates = new DesktopCertificates({ directoryUrl: acme.directoryUrl, caBundle: acme.caBundle ?? undefined, names: [...serverNames], dataDir, log });
  let started = false;
  return {
    start: () => {
      if (started) return;
      started = true;
      certificates.start();
    },
    contextFor: (serverName) => certificates.secureContextFor(serverName),
    alpnChallengeFor: (serverName) => certificates.alpnChallengeFor(serverName)?.secureContext ?? null,
    stop: () => certificates.stop(),
  };
}
