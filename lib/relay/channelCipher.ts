import { gcmNonce, type TransportKeys } from './noise';

/**
 * The channel's transport frames after the Noise handshake (RLY-2, RLY-3):
 *
 *   [8-byte big-endian counter nonce][AES-GCM with 256-bit keys of (1 kind byte, the frame's bytes)]
 *
 * The nonce travels with the frame (Noise spec §11.4, out-of-order transport messages), and a
 * receiver accepts only a nonce greater than the last one it accepted: a replayed or reordered
 * frame is refused, and so is one the relay forged or changed (its tag fails), without breaking
 * the channel — the next genuine frame still opens, since a refused frame changes no state. The
 * kind byte is inside the encryption, so the relay cannot even tell JSON from bytes.
 */
export const FRAME_KIND = { text: 0, binary: 1 } as const;
export type FrameKind = (typeof FRAME_KIND)[keyof typeof FRAME_KIND];

const NONCE_BYTES = 8;
const TAG_BYTES = 16;
/** Noise reserves 2^64-1; a channel this old is replaced long before (one frame per nanosecond for 500 years). */
const LAST_NONCE = 2n ** 64n - 2n;

export type OpenedFrame = { kind: FrameKind; data: Uint8Array<ArrayBuffer> };

/** The frame past its nonce as a view, not a copy: WebCrypto takes its own copy of the input (RLY-3's large pages). */
function ciphertextOf(frame: Uint8Array): Uint8Array<ArrayBuffer> {
  return frame.buffer instanceof ArrayBuffer ? new Uint8Array(frame.buffer, frame.byteOffset + NONCE_BYTES, frame.length - NONCE_BYTES) : frame.slice(NONCE_BYTES);
}

export class ChannelCipher {
  private sendNonce = 0n;
  /** -1: nothing accepted yet. */
  private lastAccepted = -1n;
  private sealTail: Promise<unknown> = Promise.resolve();
  private openTail: Promise<unknown> = Promise.resolve();
  private rejectedCount = 0;

  constructor(private readonly transport: TransportKeys) {}

  /** Frames refused so far: forged, replayed, reordered or malformed. */
  get rejected(): number {
    return this.rejectedCount;
  }

  /** Seals one frame. Nonces are taken at call time and results resolve in call order. */
  seal(kind: FrameKind, data: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
    if (this.sendNonce > LAST_NONCE) return Promise.reject(new Error('This channel has sent all the frames it may; open a new one.'));
    const nonce = this.sendNonce++;
    const plaintext = new Uint8Array(1 + data.length);
    plaintext[0] = kind;
    plaintext.set(data, 1);
    const sealed = (async () => {
      const ciphertext = new Uint8Array(await globalThis.crypto.subtle.encrypt({ name: 'AES-GCM', iv: gcmNonce(nonce) }, this.transport.sendKey, plaintext));
      const frame = new Uint8Array(NONCE_BYTES + ciphertext.length);
      new DataView(frame.buffer).setBigUint64(0, nonce);
      frame.set(ciphertext, NONCE_BYTES);
      return frame;
    })();
    const ordered = this.sealTail.then(() => sealed);
    this.sealTail = ordered.catch(() => undefined);
    return ordered;
  }

  /** Opens one frame, in call order; null when it is refused (and `rejected` counts it). */
  open(frame: Uint8Array): Promise<OpenedFrame | null> {
    const opened = this.openTail.then(() => this.openNow(frame));
    this.openTail = opened.catch(() => undefined);
    return opened;
  }

  private async openNow(frame: Uint8Array): Promise<OpenedFrame | null> {
    if (frame.length < NONCE_BYTES + TAG_BYTES + 1) return this.refuse();
    const nonce = new DataView(frame.buffer, frame.byteOffset, NONCE_BYTES).getBigUint64(0);
    if (nonce <= this.lastAccepted || nonce > LAST_NONCE) return this.refuse();
    let plaintext: Uint8Array<ArrayBuffer>;
    try {
      plaintext = new Uint8Array(
        await globalThis.crypto.subtle.decrypt({ name: 'AES-GCM', iv: gcmNonce(nonce) }, this.transport.receiveKey, ciphertextOf(frame)),
      );
    } catch {
      return this.refuse();
    }
    const kind = plaintext[0];
    if (kind !== FRAME_KIND.text && kind !== FRAME_KIND.binary) return this.refuse();
    this.lastAccepted = nonce;
    return { kind, data: plaintext.subarray(1) };
  }

  private refuse(): null {
    this.rejectedCount++;
    return null;
  }
}

export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error('Not base64url.');
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
