import { fromBase64url, type FrameAeadFactory } from '../../relay/channelCipher';
import type { ChannelHello } from '../../relay/relayWire';
import type { RelayCredential } from '../appDb';
import type { ConnectionEnvironment } from '../connection';
import { relayDeviceUrl } from './relayPairingLink';
import { RelaySocket, type RawRelaySocket } from './relaySocket';

/** The browser's WebSocket as the relay socket's raw socket. */
export const browserRelaySocket = (url: string): RawRelaySocket => new WebSocket(url) as unknown as RawRelaySocket;

/** A channel to this device's desktop through the relay that served the app (RLY-2, RLY-3). */
export function openRelayChannel(
  credential: RelayCredential,
  location: { protocol: string; host: string },
  hello: ChannelHello = { v: 1 },
  createSocket: (url: string) => RawRelaySocket = browserRelaySocket,
  /** The channel's AES-GCM: WebCrypto unless a Node client brings Node's. */
  frameAead?: FrameAeadFactory,
  /** How long it may take to open (RELAY_OPEN_TIMEOUT_MS unless a test shortens it). */
  openTimeoutMs?: number,
): RelaySocket {
  return new RelaySocket({
    url: relayDeviceUrl(location, credential.desktopId),
    desktopId: credential.desktopId,
    desktopKey: fromBase64url(credential.desktopKey),
    deviceKeys: { publicKey: credential.publicKey, privateKey: credential.privateKey },
    hello,
    createSocket,
    frameAead,
    openTimeoutMs,
  });
}

/** The connection's surroundings with relay channels for sockets instead of `/rpc`. */
export function relayConnectionEnvironment(base: ConnectionEnvironment, credential: RelayCredential, location: { protocol: string; host: string }): ConnectionEnvironment {
  return { ...base, createSocket: () => openRelayChannel(credential, location) };
}
