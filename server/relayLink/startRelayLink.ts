import { base64url } from '../../lib/relay/channelCipher';
import { relayPairingUrl } from '../../lib/relay/relayWire';
import type { PreviewOrigins } from '../http/previewOrigins';
import type { Logger } from '../runtime/log';
import type { Runtime } from '../runtime/runtime';
import { createMethodHandlers, type MethodHandlers } from '../rpc/methodHandlers';
import type { RpcSocketServer } from '../rpc/socketServer';
import { RelayLink } from './relayLink';
import { loadOrCreateRelayIdentity } from './relayIdentity';

/** The relay's pairing link for this desktop (RLY-2): the code, the desktop id and its Noise key, all in the fragment. */
export function relayPairingLinkFor(link: Pick<RelayLink, 'desktopId' | 'noisePublicKey'>, relayOrigin: string, code: string): string {
  return relayPairingUrl(relayOrigin, { code, desktop: link.desktopId, key: base64url(link.noisePublicKey) });
}

/**
 * `--relay URL` (RLY-2, RLY-3): loads the desktop's relay identity and keeps a link to the relay.
 * Its channels are RpcConnections of the runtime's socket server with their own handlers: previews
 * open on the relay's preview origins and `pair.create` hands out the relay's pairing link.
 */
export async function startRelayLink(relayUrl: URL, dataDir: string, runtime: Runtime, rpc: RpcSocketServer, log: Logger): Promise<RelayLink> {
  const identity = await loadOrCreateRelayIdentity(dataDir);
  const handlersByOrigins = new Map<string, MethodHandlers>();
  const pairingLink = (origin: string, code: string) => relayPairingLinkFor({ desktopId: identity.desktopId, noisePublicKey: identity.noiseKeys.publicKey }, origin, code);
  const handlersFor = (previewOrigins: PreviewOrigins) => {
    const key = JSON.stringify(previewOrigins);
    const handlers = handlersByOrigins.get(key) ?? createMethodHandlers(runtime, previewOrigins, pairingLink);
    handlersByOrigins.set(key, handlers);
    return handlers;
  };
  rpc.setRelayPairingLink((code) => pairingLink(relayUrl.origin, code));
  const link = new RelayLink({
    relayUrl,
    identity,
    log,
    pingMs: rpc.limits.relayPingMs,
    deskFor: (previewOrigins) => {
      const handlers = handlersFor(previewOrigins);
      return {
        desktopId: identity.desktopId,
        noiseKeys: identity.noiseKeys,
        auth: runtime.auth,
        accept: (socket, deviceIdentity) => rpc.acceptChannel(socket, deviceIdentity, { handlers, appOrigin: relayUrl.origin }),
        closeDrainMs: rpc.limits.channelCloseDrainMs,
      };
    },
  });
  link.start();
  return link;
}
