import type { Logger } from '../../runtime/log';
import type { RelayCertificates } from '../relayTls';
import type { AcmeCliOptions } from './acmeCliOptions';
import { DesktopCertificates } from './desktopCertificates';

/**
 * RLY-6, RLY-7: the relay TLS termination's certificates for the desktop's relay names, kept
 * current by ACME from `acme.directoryUrl`. The termination (relayTls.ts) reads ALPN from the
 * ClientHello before it picks a context, so an `acme-tls/1` hello gets `alpnChallengeFor(name)`
 * whatever TLS version the CA speaks. `start()` once the link to the relay is up (the CA's
 * validation reaches the desktop only through it); `stop()` at shutdown.
 */
export function acmeRelayCertificates(
  acme: AcmeCliOptions,
  serverNames: readonly string[],
  dataDir: string,
  log: Logger,
): RelayCertificates {
  const certificates = new DesktopCertificates({
    directoryUrl: acme.directoryUrl,
    caBundle: acme.caBundle ?? undefined,
    names: [...serverNames],
    dataDir,
    log,
  });
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
