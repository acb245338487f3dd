import type { HttpLimits } from '../../lib/nodeHttp/httpLimits';
import type { Logger } from '../runtime/log';
import type { Runtime } from '../runtime/runtime';
import { pairingUrl } from '../rpc/methodHandlers';
import type { RpcSocketServer } from '../rpc/socketServer';
import type { LinkStream } from './linkStream';
import { RelayLink } from './relayLink';
import { loadOrCreateRelayIdentity } from './relayIdentity';
import { createRelayNameServer, relayNamesFor } from './relayNameServer';
import { terminateRelayTls, type RelayCertificates } from './relayTls';
import type { RelayNames } from './relayNameServer';

/** RLY-6: TLS passthrough of the desktop's relay names, terminated here. */
export interface RelayPassthroughOptions {
  /** The relay's public TLS port (`--relay-tls-port`, 443 by default). */
  tlsPort: number;
  /** The certificates for the desktop's relay names (`--relay-cert`/`--relay-key`, or an ACME client). */
  certificates(names: RelayNames): RelayCertificates;
  limits: HttpLimits;
}

/**
 * `--relay URL` (RLY-1, RLY-2, RLY-6): loads the desktop's relay identity, keeps a link to the
 * relay and serves the desktop's relay names through it: the app, `/rpc`, pairing and previews,
 * over TLS this desktop ends with its own certificate. Local `pair.create` answers also carry the
 * pairing link on the desktop's relay name (`https://<desktopId>.HOST/pair#code=…`).
 */
export async function startRelayLink(
  relayUrl: URL,
  dataDir: string,
  runtime: Runtime,
  rpc: RpcSocketServer,
  log: Logger,
  passthrough: RelayPassthroughOptions,
): Promise<RelayLink> {
  const identity = await loadOrCreateRelayIdentity(dataDir);
  const names = relayNamesFor(relayUrl, identity.desktopId, passthrough.tlsPort);
  const server = createRelayNameServer(names, passthrough.tlsPort, runtime, rpc, passthrough.limits, log);
  const certificates = passthrough.certificates(names);
  rpc.setRelayPairingLink((code) => pairingUrl(names.appOrigin, code));
  const link = new RelayLink({
    relayUrl,
    identity,
    log,
    passthrough: {
      origin: names.appOrigin,
      server,
      acceptStream: (stream: LinkStream) => terminateRelayTls(stream, certificates, server, log),
    },
    pingMs: rpc.limits.relayPingMs,
  });
  link.start();
  // RLY-7: an ACME client starts once the link is up: the CA's validation reaches the desktop through it.
  if (certificates.start) {
    const stopListening = link.onLinked(() => {
      stopListening();
      certificates.start?.();
    });
  }
  return link;
}
