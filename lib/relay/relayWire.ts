import { z } from 'zod';
import { MAX_FRAME_BYTES } from '../protocol/version';

/**
 * The relay's wire (RLY-1, RLY-4, RLY-6): what desktops and relay nodes exchange. Everything a
 * relay forwards between a device and its desktop is the bytes of a TLS connection the desktop
 * ends, opaque to the relay. The relay sees desktop ids, connection ids, SNI names, sizes and
 * timing, nothing more.
 */

/** The desktop endpoint: `wss://HOST/relay/desktop`; challenge and register as text, then binary link frames. */
export const RELAY_DESKTOP_PATH = '/relay/desktop';

/** A desktop id: lowercase RFC 4648 base32 of the first 20 bytes of SHA-256 of its Ed25519 public key. */
export const DESKTOP_ID_PATTERN = /^[a-z2-7]{32}$/;
/** A connection id, chosen by the node that holds the client's TCP connection: `<nodeId>.<counter>`. */
export const CONNECTION_ID_PATTERN = /^[A-Za-z0-9_-]{1,40}\.[0-9]{1,15}$/;

/**
 * The largest DATA payload on a desktop link: a 32 MiB protocol frame's size plus room (the name
 * is from the retired channel; streams send far smaller pieces). Anything larger is refused by the
 * node and never forwarded.
 */
export const MAX_CHANNEL_FRAME_BYTES = MAX_FRAME_BYTES + 64 * 1024;

/**
 * Flow control per connection and direction: a sender has at most this many bytes of channel
 * frames that the far side has not acknowledged (ACK). It is larger than one frame, so a
 * maximal frame always fits, and bounds what any node holds for one connection.
 */
export const CHANNEL_WINDOW_BYTES = MAX_CHANNEL_FRAME_BYTES + 8 * 1024 * 1024;

/** Close codes of relay sockets (private range, next to lib/protocol/closeCodes.ts). */
export const RELAY_CLOSE_CODES = {
  /** The desktop id is malformed, unknown to the relay, or its desktop is not linked now. */
  desktopOffline: 4404,
  /** The desktop's link to the relay went away; the channel is gone (reconnect to get a new one). */
  desktopGone: 4502,
  /** Too many connection attempts from this address: wait and retry. */
  rateLimited: 4429,
  /** A desktop failed the challenge, or another link registered the same desktop id (takeover). */
  unauthorized: 4401,
  replaced: 4409,
  /** The peer sent more than its window, or stopped reading past it. */
  notReading: 1008,
  /** The node is at its connection limit. */
  tryAgainLater: 1013,
  goingAway: 1001,
} as const;

// ——— the desktop link ———

/** First message of a desktop link, node → desktop: a fresh nonce to sign, and the relay's origin. */
export const RelayChallengeSchema = z.object({
  type: z.literal('challenge'),
  nonce: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
  publicUrl: z.string().max(2048),
});
export type RelayChallenge = z.infer<typeof RelayChallengeSchema>;

/** desktop → node: who it is and the proof (Ed25519 over `registrationMessage`). */
export const RelayRegisterSchema = z.object({
  type: z.literal('register'),
  desktopId: z.string().regex(DESKTOP_ID_PATTERN),
  /** The Ed25519 public key, raw 32 bytes as base64url. */
  publicKey: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
  /** Ed25519 signature, 64 bytes as base64url. */
  signature: z.string().regex(/^[A-Za-z0-9_-]{86}$/),
});
export type RelayRegister = z.infer<typeof RelayRegisterSchema>;

/** node → desktop once the proof checks out; binary link frames follow. */
export const RelayRegisteredSchema = z.object({ type: z.literal('registered') });

/** What a desktop signs to register: bound to the relay's public URL and the node's nonce. */
export function registrationMessage(publicUrl: string, nonce: string): string {
  return `hbcode-relay-register/v1\n${publicUrl}\n${nonce}`;
}

/** Link frame types; 1 was OPEN, the retired relay channel's, and is refused as unknown. */
export const LINK_FRAME = {
  /** both ways: bytes for or from the connection's client. */
  data: 2,
  /** both ways: the connection ended (payload: u16 close code, UTF-8 reason). */
  close: 3,
  /** both ways: u32 count of DATA payload bytes the sender of the ACK has delivered onward. */
  ack: 4,
  /**
   * node → desktop: a TLS connection to one of the desktop's relay names opened (RLY-6; payload
   * empty). DATA then carries its raw bytes both ways, under the same windows and ACKs.
   */
  stream: 5,
  /** both ways, streams only: the sender will send no more DATA (a half-close); the other direction goes on. */
  end: 6,
} as const;
export type LinkFrameType = (typeof LINK_FRAME)[keyof typeof LINK_FRAME];

export type LinkFrame =
  | { type: typeof LINK_FRAME.stream | typeof LINK_FRAME.end; connectionId: string }
  | { type: typeof LINK_FRAME.data; connectionId: string; payload: Uint8Array }
  | { type: typeof LINK_FRAME.close; connectionId: string; code: number; reason: string }
  | { type: typeof LINK_FRAME.ack; connectionId: string; bytes: number };

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** A CLOSE reason on the wire: at most 120 characters (480 UTF-8 bytes), never cut inside one. */
const MAX_CLOSE_REASON_CHARACTERS = 120;

function cutToCharacters(text: string, max: number): string {
  let end = 0;
  for (let count = 0; end < text.length && count < max; count++) end += text.codePointAt(end)! > 0xffff ? 2 : 1;
  return text.slice(0, end);
}

/** `[u8 type][u8 id length][id ASCII][payload]` */
export function encodeLinkFrame(frame: LinkFrame): Uint8Array<ArrayBuffer> {
  const id = encoder.encode(frame.connectionId);
  if (!CONNECTION_ID_PATTERN.test(frame.connectionId)) throw new Error(`Not a connection id: ${frame.connectionId}`);
  let payload: Uint8Array;
  switch (frame.type) {
    case LINK_FRAME.stream:
    case LINK_FRAME.end:
      payload = new Uint8Array(0);
      break;
    case LINK_FRAME.data:
      payload = frame.payload;
      break;
    case LINK_FRAME.close: {
      const reason = encoder.encode(cutToCharacters(frame.reason, MAX_CLOSE_REASON_CHARACTERS));
      payload = new Uint8Array(2 + reason.length);
      new DataView(payload.buffer).setUint16(0, frame.code);
      payload.set(reason, 2);
      break;
    }
    case LINK_FRAME.ack:
      payload = new Uint8Array(4);
      new DataView(payload.buffer).setUint32(0, frame.bytes);
      break;
  }
  const out = new Uint8Array(2 + id.length + payload.length);
  out[0] = frame.type;
  out[1] = id.length;
  out.set(id, 2);
  out.set(payload, 2 + id.length);
  return out;
}

/** Parses a link frame; anything malformed is an Error naming what is wrong (never a partial frame). */
export function decodeLinkFrame(bytes: Uint8Array): LinkFrame {
  if (bytes.length < 2) throw new Error('A link frame needs at least 2 bytes.');
  const type = bytes[0];
  const idLength = bytes[1] ?? 0;
  if (bytes.length < 2 + idLength) throw new Error('A link frame ends inside its connection id.');
  let connectionId: string;
  try {
    connectionId = decoder.decode(bytes.subarray(2, 2 + idLength));
  } catch {
    throw new Error('A link frame has a connection id that is not UTF-8.');
  }
  if (!CONNECTION_ID_PATTERN.test(connectionId)) throw new Error('A link frame has a malformed connection id.');
  const payload = bytes.subarray(2 + idLength);
  switch (type) {
    case LINK_FRAME.stream:
    case LINK_FRAME.end:
      if (payload.length !== 0) throw new Error('A STREAM or END link frame carries no payload.');
      return { type, connectionId };
    case LINK_FRAME.data:
      if (payload.length === 0) throw new Error('A DATA link frame carries bytes.');
      if (payload.length > MAX_CHANNEL_FRAME_BYTES)
        throw new Error(`A DATA link frame may carry at most ${MAX_CHANNEL_FRAME_BYTES} bytes.`);
      return { type, connectionId, payload };
    case LINK_FRAME.close: {
      if (payload.length < 2 || payload.length > 2 + 4 * MAX_CLOSE_REASON_CHARACTERS)
        throw new Error('A CLOSE link frame carries a code and a short reason.');
      const code = new DataView(payload.buffer, payload.byteOffset, payload.byteLength).getUint16(0);
      let reason: string;
      try {
        reason = decoder.decode(payload.subarray(2));
      } catch {
        throw new Error('A CLOSE link frame has a reason that is not UTF-8.');
      }
      return { type, connectionId, code, reason };
    }
    case LINK_FRAME.ack:
      if (payload.length !== 4) throw new Error('An ACK link frame carries a 4-byte count.');
      return { type, connectionId, bytes: new DataView(payload.buffer, payload.byteOffset, 4).getUint32(0) };
    default:
      throw new Error(`Unknown link frame type ${String(type)}.`);
  }
}
