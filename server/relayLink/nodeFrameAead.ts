import crypto from 'node:crypto';
import { NONCE_BYTES, SEAL_OVERHEAD_BYTES, TAG_BYTES, type FrameAead, type FrameAeadFactory } from '../../lib/relay/channelCipher';
import { gcmNonce } from '../../lib/relay/noise';
import type { FrameBufferPool } from './frameBufferPool';

/**
 * The channel's AES-GCM (256-bit keys) through Node's OpenSSL binding, for the runtime's end of
 * each relay channel (RLY-3). The same cipher, nonces and frames as WebCrypto's (the browser's
 * end), without its per-call copies and thread-pool round trips. The keys stay the handshake's
 * non-extractable CryptoKeys; `KeyObject.from` only hands OpenSSL the same key.
 *
 * Large frames go through the cipher in slices of SLICE_BYTES, each copied straight into the
 * frame: the slices' outputs stay under malloc's mmap threshold and reuse warm memory, where one
 * output buffer of a page's size would be fresh memory every time.
 */
const SLICE_BYTES = 64 * 1024;
const ALGORITHM = 'aes-256-gcm';

export interface NodeFrameAeadOptions {
  /** Where sealed frames' buffers come from; `release` gives them back. */
  pool?: FrameBufferPool;
  /**
   * Open into the received frame's own bytes: the caller hands over a buffer nobody else reads
   * (a socket's message), so a page needs no second buffer of its size. A frame that fails its
   * tag is garbage afterwards, and is dropped anyway.
   */
  openInPlace?: boolean;
}

export function nodeFrameAead({ pool, openInPlace = false }: NodeFrameAeadOptions = {}): FrameAeadFactory {
  return (keys): FrameAead => {
    const sendKey = crypto.KeyObject.from(keys.sendKey);
    const receiveKey = crypto.KeyObject.from(keys.receiveKey);
    return {
      seal(nonce, kind, data, headroom) {
        const size = headroom + SEAL_OVERHEAD_BYTES + data.length;
        const frame = pool ? pool.take(size) : new Uint8Array(size);
        new DataView(frame.buffer, frame.byteOffset, frame.byteLength).setBigUint64(headroom, nonce);
        const cipher = crypto.createCipheriv(ALGORITHM, sendKey, gcmNonce(nonce), { authTagLength: TAG_BYTES });
        let at = headroom + NONCE_BYTES;
        at += cipher.update(Uint8Array.of(kind)).copy(frame, at);
        for (let offset = 0; offset < data.length; offset += SLICE_BYTES) {
          at += cipher.update(data.subarray(offset, offset + SLICE_BYTES)).copy(frame, at);
        }
        at += cipher.final().copy(frame, at);
        cipher.getAuthTag().copy(frame, at);
        return frame;
      },
      release(sealed) {
        pool?.give(sealed);
      },
      open(nonce, ciphertext) {
        if (ciphertext.length < TAG_BYTES + 1) return null;
        const body = ciphertext.length - TAG_BYTES;
        const decipher = crypto.createDecipheriv(ALGORITHM, receiveKey, gcmNonce(nonce), { authTagLength: TAG_BYTES });
        decipher.setAuthTag(ciphertext.subarray(body));
        // In place, each slice's plaintext lands where its ciphertext was, already read.
        const plaintext = openInPlace ? ciphertext.subarray(0, body) : new Uint8Array(new ArrayBuffer(body));
        let at = 0;
        for (let offset = 0; offset < body; offset += SLICE_BYTES) {
          at += decipher.update(ciphertext.subarray(offset, Math.min(body, offset + SLICE_BYTES))).copy(plaintext, at);
        }
        try {
          decipher.final();
        } catch {
          // The tag does not authenticate: nothing of the plaintext is handed on.
          return null;
        }
        return plaintext;
      },
    };
  };
}
