import { base64url } from '../../lib/relay/channelCipher';
import { relayPairingUrl } from '../../lib/relay/relayWire';
import type { HttpLimits } from '../http/httpLimits';
import type { PreviewOrigins } from '../http/previewOrigins';
import type { Logger } from '../runtime/log';
import type { Runtime } from '../runtime/runtime';
import { createMethodHandlers, pairingUrl, type MethodHandlers } from '../rpc/methodHandlers';
import type { RpcSocketServer } from '../rpc/socketServer';
import type { LinkStream } from './linkStream';
import { RelayLink } from './relayLink';
import { loadOrCreateRelayIdentity } from './relayIdentity';
import { createRelayNameServer, relayNamesFor, type RelayNames } from './relayNameServer';
import { terminateRelayTls, type RelayCertificates } from './relayTls';

/** RLY-6: TLS passthrough of the desktop's relay names, terminated here. */
export interface RelayPassthroughOptions {
  /** The relay's public TLS port (`--relay-tls-port`, 443 by default). */
  tlsPort: number;
  /** The certificates for the desktop's relay names (`--relay-cert`/`--relay-key`, or an ACME client). */
  certificates(names: RelayNames): RelayCertificates;
  limits: HttpLimits;
}

/** RLY-6: the desktop's relay names, their HTTP server and what takes each stream to it through TLS. */
function serveRelayNames(passthrough: RelayPassthroughOptions, relayUrl: URL, desktopId: string, runtime: Runtime, rpc: RpcSocketServer, log: Logger) {
  const names = relayNamesFor(relayUrl, desktopId, passthrough.tlsPort);
  const server = createRelayNameServer(names, passthrough.tlsPort, runtime, rpc, passthrough.limits, log);
  const certificates = passthrough.certificates(names);
  return { origin: names.appOrigin, server, certificates, acceptStream: (stream: LinkStream) => terminateRelayTls(stream, certificates, server, log) };
}

/** The relay's pairing link for this desktop (RLY-2): the code, the desktop id and its Noise key, all in the fragment. */
export function relayPairingLinkFor(link: Pick<RelayLink, 'desktopId' | 'noisePublicKey'>, relayOrigin: string, code: string): string {
  return relayPairingUrl(relayOrigin, { code, desktop: link.desktopId, key: base64url(link.noisePublicKey) });
}

/**
 * `--relay URL` (RLY-2, RLY-3): loads the desktop's relay identity and keeps a link to the relay.
 * Its channels are RpcConnections of the runtime's socket server with their own handlers: previews
 * open on the relay's preview origins and `pair.create` hands out the relay's pairing link. With
 * `passthrough` (RLY-6) the desktop also serves its own relay names through the relay's TLS port,
 * and local `pair.create` answers carry the pairing link of that origin instead.
 */
export async function startRelayLink(relayUrl: URL, dataDir: string, runtime: Runtime, rpc: RpcSocketServer, log: Logger, passthrough: RelayPassthroughOptions | null = null): Promise<RelayLink> {
  const identity = await loadOrCreateRelayIdentity(dataDir);
  const served = passthrough ? serveRelayNames(passthrough, relayUrl, identity.desktopId, runtime, rpc, log) : null;
  const handlersByOrigins = new Map<string, MethodHandlers>();
  const pairingLink = (origin: string, code: string) => relayPairingLinkFor({ desktopId: identity.desktopId, noisePublicKey: identity.noiseKeys.publicKey }, origin, code);
  const handlersFor = (previewOrigins: PreviewOrigins) => {
    const key = JSON.stringify(previewOrigins);
    const handlers = handlersByOrigins.get(key) ?? createMethodHandlers(runtime, previewOrigins, pairingLink);
    handlersByOrigins.set(key, handlers);
    return handlers;
  };
  // With passthrough, a device pairs on the desktop's own relay name, as it would locally (RLY-6).
  rpc.setRelayPairingLink((code) => (served ? pairingUrl(served.origin, code) : pairingLink(relayUrl.origin, code)));
  const link = new RelayLink({
    relayUrl,
    identity,
    log,
    passthrough: served,
    pingMs: rpc.limits.relayPingMs,
    deskFor: (previewOrigins) => {
      const handlers = handlersFor(previewOrigins);
      return {
        desktopId: identity.desktopId,
        noiseKeys: identity.noiseKeys,
        auth: runtime.auth,
        accept: (socket, deviceIdentity) => rpc.acceptChannel(socket, deviceIdentity, { handlers, appOrigin: relayUrl.origin }),
        closeDrainMs: rpc.limits.channelCloseDrainMs,
        ...(served ? { acceptStream: served.acceptStream } : {}),
      };
    },
  });
  link.start();
  // RLY-7: an ACME client starts once the link is up: the CA's validation reaches the desktop through it.
  const certificates = served?.certificates;
  if (certificates?.start) {
    const stopListening = link.onLinked(() => {
      stopListening();
      certificates.start?.();
    });
  }
  return link;
}
