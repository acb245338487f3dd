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

export const NONCE_BYTES = 8;
export const TAG_BYTES = 16;
/** What sealing adds to a frame's bytes: the nonce, the kind byte and the tag. */
export const SEAL_OVERHEAD_BYTES = NONCE_BYTES + 1 + TAG_BYTES;
/** Noise reserves 2^64-1; a channel this old is replaced long before (one frame per nanosecond for 500 years). */
const LAST_NONCE = 2n ** 64n - 2n;

export type OpenedFrame = { kind: FrameKind; data: Uint8Array };

/**
 * AES-GCM with 256-bit keys over the channel's frames, with Noise's nonce layout (`gcmNonce`). The browser's is
 * WebCrypto (`webCryptoFrameAead`); the runtime's is Node's OpenSSL binding (server/relayLink/
 * nodeFrameAead.ts), which seals a large page without WebCrypto's copies and thread hops (RLY-3).
 * Either may answer at once or later: the cipher keeps call order.
 */
export interface FrameAead {
  /**
   * `[nonce][ciphertext of (kind, data)][tag]` starting `headroom` bytes into the returned buffer
   * (the caller writes its own header there, so a link frame needs no second copy).
   */
  seal(nonce: bigint, kind: FrameKind, data: Uint8Array, headroom: number): Uint8Array<ArrayBuffer> | Promise<Uint8Array<ArrayBuffer>>;
  /** The plaintext `(kind, data)` of `ciphertext` (tag last), or null when it does not authenticate. */
  open(nonce: bigint, ciphertext: Uint8Array): Uint8Array | null | Promise<Uint8Array | null>;
  /** A sealed frame nobody reads any more (the socket wrote it): its buffer may serve again. */
  release?(sealed: Uint8Array): void;
}

export type FrameAeadFactory = (keys: TransportKeys) => FrameAead;

/** The ciphertext as a view, not a copy: WebCrypto takes its own copy of the input (RLY-3's large pages). */
function ciphertextOf(frame: Uint8Array): Uint8Array<ArrayBuffer> {
  return frame.buffer instanceof ArrayBuffer ? new Uint8Array(frame.buffer, frame.byteOffset, frame.byteLength) : frame.slice();
}

/** WebCrypto's AES-GCM: the browser's, where the keys stay non-extractable. */
export const webCryptoFrameAead: FrameAeadFactory = (keys) => ({
  async seal(nonce, kind, data, headroom) {
    const plaintext = new Uint8Array(1 + data.length);
    plaintext[0] = kind;
    plaintext.set(data, 1);
    const ciphertext = new Uint8Array(await globalThis.crypto.subtle.encrypt({ name: 'AES-GCM', iv: gcmNonce(nonce) }, keys.sendKey, plaintext));
    const frame = new Uint8Array(headroom + NONCE_BYTES + ciphertext.length);
    new DataView(frame.buffer).setBigUint64(headroom, nonce);
    frame.set(ciphertext, headroom + NONCE_BYTES);
    return frame;
  },
  async open(nonce, ciphertext) {
    try {
      return new Uint8Array(await globalThis.crypto.subtle.decrypt({ name: 'AES-GCM', iv: gcmNonce(nonce) }, keys.receiveKey, ciphertextOf(ciphertext)));
    } catch {
      return null;
    }
  },
});

const isPromise = <T>(value: T | Promise<T>): value is Promise<T> => typeof (value as { then?: unknown } | null)?.then === 'function';

export class ChannelCipher {
  private sendNonce = 0n;
  /** -1: nothing accepted yet. */
  private lastAccepted = -1n;
  private sealTail: Promise<unknown> = Promise.resolve();
  private openTail: Promise<unknown> = Promise.resolve();
  private rejectedCount = 0;
  private readonly aead: FrameAead;

  constructor(transport: TransportKeys, aead: FrameAeadFactory = webCryptoFrameAead) {
    this.aead = aead(transport);
  }

  /** Frames refused so far: forged, replayed, reordered or malformed. */
  get rejected(): number {
    return this.rejectedCount;
  }

  /**
   * Seals one frame, `headroom` free bytes before it (see FrameAead.seal). Nonces are taken at
   * call time and results resolve in call order.
   */
  seal(kind: FrameKind, data: Uint8Array, headroom = 0): Promise<Uint8Array<ArrayBuffer>> {
    if (this.sendNonce > LAST_NONCE) return Promise.reject(new Error('This channel has sent all the frames it may; open a new one.'));
    const nonce = this.sendNonce++;
    let sealed: Uint8Array<ArrayBuffer> | Promise<Uint8Array<ArrayBuffer>>;
    try {
      sealed = this.aead.seal(nonce, kind, data, headroom);
    } catch (error) {
      sealed = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    const ordered = this.sealTail.then(() => sealed);
    this.sealTail = ordered.catch(() => undefined);
    return ordered;
  }

  /** `sealed` (from `seal`) has been written and is read no more: the AES-GCM may reuse its buffer. */
  release(sealed: Uint8Array): void {
    this.aead.release?.(sealed);
  }

  /** Opens one frame, in call order; null when it is refused (and `rejected` counts it). */
  open(frame: Uint8Array): Promise<OpenedFrame | null> {
    const opened = this.openTail.then(() => this.openNow(frame));
    this.openTail = opened.catch(() => undefined);
    return opened;
  }

  /** Runs after every earlier open has settled, so `lastAccepted` cannot move while this one decrypts. */
  private openNow(frame: Uint8Array): OpenedFrame | null | Promise<OpenedFrame | null> {
    if (frame.length < SEAL_OVERHEAD_BYTES) return this.refuse();
    const nonce = new DataView(frame.buffer, frame.byteOffset, NONCE_BYTES).getBigUint64(0);
    if (nonce <= this.lastAccepted || nonce > LAST_NONCE) return this.refuse();
    let plaintext: Uint8Array | null | Promise<Uint8Array | null>;
    try {
      plaintext = this.aead.open(nonce, frame.subarray(NONCE_BYTES));
    } catch {
      return this.refuse();
    }
    return isPromise(plaintext) ? plaintext.then((opened) => this.accept(nonce, opened), () => this.refuse()) : this.accept(nonce, plaintext);
  }

  private accept(nonce: bigint, plaintext: Uint8Array | null): OpenedFrame | null {
    if (!plaintext) return this.refuse();
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
