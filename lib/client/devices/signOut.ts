import { CLOSE_CODES } from '../../protocol/closeCodes';
import { PROTOCOL_VERSION } from '../../protocol/version';
import { forgetPairing, forgetPendingSignOut, loadPendingSignOut, queueSignOut, type DevicePairing } from '../appDb';
import { rpcUrlFor } from '../connection';
import { openRelayChannel } from '../relay/relayChannel';
import { RpcClient, RpcError, type WebSocketLike } from '../rpcClient';
import { ClosedBeforeOpenError, untilOpen } from '../untilOpen';

/** The runtime no longer knows this token or device: there is nothing left to revoke. */
const alreadyGone = (error: unknown) => error instanceof RpcError && (error.code === 'unauthorized' || error.code === 'not_found');

/**
 * Sign out (DEV-1): the runtime revokes this device's token, then the device forgets it. When
 * the runtime cannot be reached, the token is forgotten as this device's pairing at once and kept
 * only to revoke it on the next connection (`sendPendingSignOut`).
 */
export async function signOutDevice(client: RpcClient | null, pairing: DevicePairing): Promise<'revoked' | 'queued'> {
  if (client) {
    try {
      await client.call('devices.revoke', { deviceId: pairing.deviceId });
      await forgetPairing();
      return 'revoked';
    } catch (error) {
      if (alreadyGone(error)) {
        await forgetPairing();
        return 'revoked';
      }
    }
  }
  await queueSignOut(pairing);
  return 'queued';
}

/** Sends a queued sign-out over a socket of its own; true once nothing is left queued. */
export async function sendPendingSignOut(location: { protocol: string; host: string }): Promise<boolean> {
  const pending = await loadPendingSignOut();
  if (!pending) return true;
  // A relay pairing revokes itself through a channel its key opens (RLY-2); the queued record,
  // and with it the key, is forgotten once the desktop has revoked it.
  const socket = pending.relay ? openRelayChannel(pending.relay, location) : (new WebSocket(rpcUrlFor(location)) as unknown as WebSocketLike);
  const client = new RpcClient(socket);
  try {
    await untilOpen(client);
    if (!pending.relay) await client.call('auth.hello', { token: pending.token, protocolVersion: PROTOCOL_VERSION });
    await client.call('devices.revoke', { deviceId: pending.deviceId });
    await forgetPendingSignOut();
    return true;
  } catch (error) {
    if (!alreadyGone(error) && !refusedByChannel(error)) return false;
    await forgetPendingSignOut();
    return true;
  } finally {
    client.close();
  }
}

/** A relay channel refused at its handshake (4401): the desktop no longer knows this key. */
const refusedByChannel = (error: unknown) => error instanceof ClosedBeforeOpenError && error.closeCode === CLOSE_CODES.unauthorized;
