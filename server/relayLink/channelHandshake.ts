import { NoiseError, NoiseIKResponder, type StaticKeyPair, type TransportKeys } from '../../lib/relay/noise';
import { channelPrologue, ChannelHelloSchema, type ChannelWelcome } from '../../lib/relay/relayWire';
import type { DeviceAuth, Identity } from '../auth/tokens';
import { RuntimeError } from '../runtime/errors';
import { SERVER_VERSION } from '../rpc/methodHandlers';
import type { HandshakeReplays } from './handshakeReplays';

const WRONG_CODE = 'This pairing code is wrong, used or expired. Ask the computer for a new one.';

export interface HandshakeAnswer {
  /** Handshake message 2, carrying the encrypted welcome. */
  message2: Uint8Array;
  transport: TransportKeys;
  /** The device, or null when the welcome refused it (then the channel is closed 4401). */
  identity: Identity | null;
  /** The refusal's words, for the CLOSE reason. */
  refusal: string | null;
}

/** Which device the hello proves, or a refusal (RLY-2): a code pairs the key, else the key must be an active device's. */
function welcomeFor(hello: unknown, deviceKey: Uint8Array, auth: DeviceAuth): { welcome: ChannelWelcome; identity: Identity | null } {
  const parsed = ChannelHelloSchema.safeParse(hello);
  if (!parsed.success) return { welcome: { ok: false, code: 'invalid_params', message: 'The channel hello is malformed.' }, identity: null };
  const { pair } = parsed.data;
  let identity: Identity | null;
  try {
    identity = pair ? auth.redeemForKey(pair.code, pair.deviceName, deviceKey) : auth.authenticateKey(deviceKey);
  } catch (error) {
    if (error instanceof RuntimeError && error.code === 'rate_limited') {
      const retryAfterMs = typeof error.data.retryAfterMs === 'number' ? error.data.retryAfterMs : 0;
      return { welcome: { ok: false, code: 'rate_limited', message: error.message, retryAfterMs }, identity: null };
    }
    throw error;
  }
  if (!identity) return { welcome: { ok: false, code: 'unauthorized', message: pair ? WRONG_CODE : auth.keyRefusalReason(deviceKey) }, identity: null };
  return { welcome: { ok: true, deviceId: identity.deviceId ?? '', serverVersion: SERVER_VERSION }, identity };
}

/** Message 1 is a copy of one answered before (its ephemeral key was used): the relay replayed it. */
export class ReplayedHandshakeError extends NoiseError {}

/**
 * The responder's half of the channel handshake (Noise IK, RLY-2). Throws NoiseError when message 1
 * does not decrypt (a device that does not know this desktop's key, or a forged message), and
 * ReplayedHandshakeError for a replay, before its hello is looked at: then no answer is given and
 * the caller closes the connection.
 */
export async function answerHandshake(message1: Uint8Array, desktopId: string, noiseKeys: StaticKeyPair, auth: DeviceAuth, replays: HandshakeReplays): Promise<HandshakeAnswer> {
  const responder = new NoiseIKResponder({ prologue: channelPrologue(desktopId), staticKeys: noiseKeys });
  const { payload, remoteStaticKey, remoteEphemeralKey } = await responder.readMessage1(message1);
  // Checked once message 1 proved to come from a device's key, so junk cannot fill the record.
  if (!replays.firstUse(remoteEphemeralKey)) throw new ReplayedHandshakeError('This handshake was answered before: a replay.');
  let hello: unknown;
  try {
    hello = JSON.parse(new TextDecoder().decode(payload));
  } catch {
    hello = null;
  }
  const { welcome, identity } = welcomeFor(hello, remoteStaticKey, auth);
  const { message, transport } = await responder.writeMessage2(new TextEncoder().encode(JSON.stringify(welcome)));
  return { message2: message, transport, identity, refusal: welcome.ok ? null : welcome.message };
}
