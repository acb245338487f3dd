import { PROTOCOL_VERSION } from '../../protocol/version';
import { forgetPairing, forgetPendingSignOut, loadPendingSignOut, queueSignOut, type DevicePairing } from '../appDb';
import { rpcUrlFor } from '../connection';
import { RpcClient, RpcError, type WebSocketLike } from '../rpcClient';
import { untilOpen } from '../untilOpen';

/** The runtime no longer knows this token or device: there is nothing left to revoke. */
const alreadyGone = (error: unknown) =>
  error instanceof RpcError && (error.code === 'unauthorized' || error.code === 'not_found');

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
  const client = new RpcClient(new WebSocket(rpcUrlFor(location)) as unknown as WebSocketLike);
  try {
    await untilOpen(client);
    await client.call('auth.hello', { token: pending.token, protocolVersion: PROTOCOL_VERSION });
    await client.call('devices.revoke', { deviceId: pending.deviceId });
    await forgetPendingSignOut();
    return true;
  } catch (error) {
    if (!alreadyGone(error)) return false;
    await forgetPendingSignOut();
    return true;
  } finally {
    client.close();
  }
}
