import { CLOSE_CODES } from '../../protocol/closeCodes';
import { generateKeyPair } from '../../relay/noise';
import { RELAY_CLOSE_CODES, type RelayPairingLink } from '../../relay/relayWire';
import type { DevicePairing, RelayCredential } from '../appDb';
import { RpcClient } from '../rpcClient';
import { ClosedBeforeOpenError, untilOpen } from '../untilOpen';
import { openRelayChannel, browserRelaySocket } from './relayChannel';
import { HANDSHAKE_FAILED_CLOSE, OPEN_TIMEOUT_CLOSE, type RawRelaySocket } from './relaySocket';

/** A pairing through the relay that did not happen, with the words the pair screen shows. */
export class RelayPairingError extends Error {
  override readonly name = 'RelayPairingError';
  constructor(
    readonly code: 'refused' | 'desktop_offline' | 'rate_limited' | 'unverified' | 'unreachable' | 'unsupported',
    message: string,
  ) {
    super(message);
  }
}

export const DESKTOP_OFFLINE_MESSAGE = 'Your desktop is not connected to the relay. Is the runtime running with --relay?';

function pairingFailure(code: number, reason: string): RelayPairingError {
  switch (code) {
    case CLOSE_CODES.unauthorized:
      return new RelayPairingError('refused', reason || 'The desktop refused this pairing.');
    case RELAY_CLOSE_CODES.desktopOffline:
    case RELAY_CLOSE_CODES.desktopGone:
    case OPEN_TIMEOUT_CLOSE:
      return new RelayPairingError('desktop_offline', DESKTOP_OFFLINE_MESSAGE);
    case RELAY_CLOSE_CODES.rateLimited:
    case RELAY_CLOSE_CODES.tryAgainLater:
      return new RelayPairingError('rate_limited', 'The relay is busy: wait a moment and try again.');
    case HANDSHAKE_FAILED_CLOSE:
      return new RelayPairingError('unverified', "The desktop's answer could not be verified. Open the pairing link again from your desktop, or scan its QR code again.");
    default:
      return new RelayPairingError('unreachable', 'Could not reach the relay. Check your connection and try again.');
  }
}

/**
 * Pairs this device with a desktop through the relay that served the app (RLY-2): a fresh X25519
 * key pair whose private key WebCrypto never lets out, then one channel whose hello carries the
 * single-use code. The desktop's welcome is the answer; the channel then closes, and the app
 * opens its own with the stored key. Only the desktop id travels in the clear (the socket's
 * query); the code and this device's name are inside the encrypted hello.
 */
export async function pairThroughRelay(
  link: RelayPairingLink,
  deviceName: string,
  location: { protocol: string; host: string },
  createSocket: (url: string) => RawRelaySocket = browserRelaySocket,
): Promise<DevicePairing> {
  let keys;
  try {
    keys = await generateKeyPair(false);
  } catch {
    // WebCrypto's X25519 is missing (an old browser) or the page is not a secure context.
    throw new RelayPairingError('unsupported', 'This browser cannot make the key the relay needs (X25519 in WebCrypto). Update it, or use another browser.');
  }
  const credential: RelayCredential = { desktopId: link.desktop, desktopKey: link.key, privateKey: keys.privateKey, publicKey: keys.publicKey };
  const socket = openRelayChannel(credential, location, { v: 1, pair: { code: link.code, deviceName } }, createSocket);
  const client = new RpcClient(socket);
  try {
    await untilOpen(client);
  } catch (error) {
    // The desktop's own words when it refused (the relay cannot forge them); else what the close says.
    if (socket.refusal) throw new RelayPairingError(socket.refusal.code === 'rate_limited' ? 'rate_limited' : 'refused', socket.refusal.message);
    if (error instanceof ClosedBeforeOpenError) throw pairingFailure(error.closeCode, error.closeReason);
    throw pairingFailure(1006, '');
  } finally {
    client.close();
  }
  if (!socket.deviceId) throw pairingFailure(1006, '');
  return { token: '', deviceId: socket.deviceId, deviceName, pairedAt: Date.now(), relay: credential };
}
