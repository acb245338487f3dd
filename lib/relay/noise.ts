/**
 * The channel's handshake (RLY-2): `Noise_IK_25519_AESGCM_SHA256` as the Noise Protocol Framework
 * (revision 34) defines it, every primitive from WebCrypto (X25519, AES-GCM with 256-bit keys, SHA-256, HMAC),
 * so the browser and Node 20 run the same code and a device's private key never leaves WebCrypto
 * (it is made non-extractable). IK because the device already knows the desktop's static key from
 * the pairing link: the relay never supplies a key, so it can never supply a wrong one. The
 * published test vector for this exact protocol name is checked in tests/unit/relay/noise.test.ts.
 *
 *   <- s
 *   ...
 *   -> e, es, s, ss
 *   <- e, ee, se
 */

const PROTOCOL_NAME = 'Noise_IK_25519_AESGCM_SHA256';
const DH_LENGTH = 32;
const TAG_LENGTH = 16;
/** RFC 8410's PKCS #8 prefix for a raw X25519 private key. */
const PKCS8_X25519_PREFIX = Uint8Array.from([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x04, 0x22, 0x04, 0x20]);

const subtle = () => globalThis.crypto.subtle;

export class NoiseError extends Error {
  override readonly name = 'NoiseError';
}

export interface StaticKeyPair {
  /** Raw 32-byte X25519 public key. */
  publicKey: Uint8Array<ArrayBuffer>;
  privateKey: CryptoKey;
}

export interface TransportKeys {
  sendKey: CryptoKey;
  receiveKey: CryptoKey;
  /** Both sides' handshake hash: equal only when they saw the same handshake (channel binding). */
  handshakeHash: Uint8Array<ArrayBuffer>;
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

const copy = (bytes: Uint8Array): Uint8Array<ArrayBuffer> => new Uint8Array(bytes);

/** A new X25519 key pair; the private key is non-extractable unless asked (the desktop stores its own). */
export async function generateKeyPair(extractable = false): Promise<StaticKeyPair> {
  const pair = (await subtle().generateKey({ name: 'X25519' }, extractable, ['deriveBits'])) as CryptoKeyPair;
  return { publicKey: new Uint8Array(await subtle().exportKey('raw', pair.publicKey)), privateKey: pair.privateKey };
}

/** A stored private key (PKCS #8) as a non-extractable key pair. */
export async function importPrivateKey(pkcs8: Uint8Array, publicKey: Uint8Array): Promise<StaticKeyPair> {
  if (publicKey.length !== DH_LENGTH) throw new NoiseError('An X25519 public key has 32 bytes.');
  const privateKey = await subtle().importKey('pkcs8', copy(pkcs8), { name: 'X25519' }, false, ['deriveBits']);
  return { publicKey: copy(publicKey), privateKey };
}

/** A raw 32-byte private key (test vectors only) in PKCS #8 form. */
export function pkcs8OfRawPrivateKey(raw: Uint8Array): Uint8Array<ArrayBuffer> {
  if (raw.length !== DH_LENGTH) throw new NoiseError('An X25519 private key has 32 bytes.');
  return concat(PKCS8_X25519_PREFIX, raw);
}

async function dh(keys: StaticKeyPair, remotePublicKey: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  let publicKey: CryptoKey;
  try {
    publicKey = await subtle().importKey('raw', copy(remotePublicKey), { name: 'X25519' }, true, []);
    return new Uint8Array(await subtle().deriveBits({ name: 'X25519', public: publicKey }, keys.privateKey, 256));
  } catch {
    // A low-order point makes X25519 fail in WebCrypto: the peer's key is not acceptable.
    throw new NoiseError('The peer sent an unusable X25519 public key.');
  }
}

async function sha256(data: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await subtle().digest('SHA-256', data));
}

async function hmac(key: Uint8Array<ArrayBuffer>, data: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  const hmacKey = await subtle().importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await subtle().sign('HMAC', hmacKey, data));
}

/** Noise's HKDF with two outputs (RFC 5869 with an empty info). */
async function hkdf2(chainingKey: Uint8Array<ArrayBuffer>, inputKeyMaterial: Uint8Array<ArrayBuffer>): Promise<[Uint8Array<ArrayBuffer>, Uint8Array<ArrayBuffer>]> {
  const tempKey = await hmac(chainingKey, inputKeyMaterial);
  const output1 = await hmac(tempKey, Uint8Array.of(1));
  const output2 = await hmac(tempKey, concat(output1, Uint8Array.of(2)));
  return [output1, output2];
}

/** AESGCM's nonce in Noise: 32 zero bits, then the counter as 64 bits big-endian. */
export function gcmNonce(counter: bigint): Uint8Array<ArrayBuffer> {
  const nonce = new Uint8Array(12);
  new DataView(nonce.buffer).setBigUint64(4, counter);
  return nonce;
}

const aesKey = (raw: Uint8Array<ArrayBuffer>) => subtle().importKey('raw', raw, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);

/** The SymmetricState of the Noise spec, with its CipherState folded in (only the handshake uses it). */
class SymmetricState {
  private h!: Uint8Array<ArrayBuffer>;
  private ck!: Uint8Array<ArrayBuffer>;
  private key: CryptoKey | null = null;
  private nonce = 0n;

  async initialize(prologue: Uint8Array): Promise<void> {
    const name = new TextEncoder().encode(PROTOCOL_NAME);
    this.h = new Uint8Array(32);
    this.h.set(name);
    this.ck = copy(this.h);
    await this.mixHash(prologue);
  }

  get handshakeHash(): Uint8Array<ArrayBuffer> {
    return copy(this.h);
  }

  async mixHash(data: Uint8Array): Promise<void> {
    this.h = await sha256(concat(this.h, data));
  }

  async mixKey(inputKeyMaterial: Uint8Array<ArrayBuffer>): Promise<void> {
    const [ck, tempKey] = await hkdf2(this.ck, inputKeyMaterial);
    this.ck = ck;
    this.key = await aesKey(tempKey);
    this.nonce = 0n;
  }

  async encryptAndHash(plaintext: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
    if (!this.key) throw new NoiseError('The handshake has no key yet.');
    const ciphertext = new Uint8Array(await subtle().encrypt({ name: 'AES-GCM', iv: gcmNonce(this.nonce), additionalData: this.h }, this.key, copy(plaintext)));
    this.nonce++;
    await this.mixHash(ciphertext);
    return ciphertext;
  }

  async decryptAndHash(ciphertext: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
    if (!this.key) throw new NoiseError('The handshake has no key yet.');
    let plaintext: Uint8Array<ArrayBuffer>;
    try {
      plaintext = new Uint8Array(await subtle().decrypt({ name: 'AES-GCM', iv: gcmNonce(this.nonce), additionalData: this.h }, this.key, copy(ciphertext)));
    } catch {
      throw new NoiseError('A handshake message failed authentication: wrong keys, or it was changed on the way.');
    }
    this.nonce++;
    await this.mixHash(ciphertext);
    return plaintext;
  }

  /** Split(): the first key is the initiator's sending key. */
  async split(): Promise<[CryptoKey, CryptoKey]> {
    const [k1, k2] = await hkdf2(this.ck, new Uint8Array(0));
    return [await aesKey(k1), await aesKey(k2)];
  }
}

/** The device's side: it knows the desktop's static key (from the pairing link). */
export class NoiseIKInitiator {
  private readonly state = new SymmetricState();
  private ephemeral: StaticKeyPair | null = null;
  private step: 'message1' | 'message2' | 'done' = 'message1';

  constructor(
    private readonly options: { prologue: Uint8Array; staticKeys: StaticKeyPair; remoteStaticKey: Uint8Array; ephemeralKeys?: StaticKeyPair },
  ) {
    if (options.remoteStaticKey.length !== DH_LENGTH) throw new NoiseError("The desktop's public key must have 32 bytes.");
  }

  async writeMessage1(payload: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
    if (this.step !== 'message1') throw new NoiseError('Message 1 was already written.');
    this.step = 'message2';
    const { state } = this;
    const { staticKeys, remoteStaticKey } = this.options;
    await state.initialize(this.options.prologue);
    await state.mixHash(remoteStaticKey);
    const e = this.options.ephemeralKeys ?? (await generateKeyPair());
    this.ephemeral = e;
    await state.mixHash(e.publicKey);
    await state.mixKey(await dh(e, remoteStaticKey));
    const encryptedStatic = await state.encryptAndHash(staticKeys.publicKey);
    await state.mixKey(await dh(staticKeys, remoteStaticKey));
    const encryptedPayload = await state.encryptAndHash(payload);
    return concat(e.publicKey, encryptedStatic, encryptedPayload);
  }

  async readMessage2(message: Uint8Array): Promise<{ payload: Uint8Array<ArrayBuffer>; transport: TransportKeys }> {
    if (this.step !== 'message2' || !this.ephemeral) throw new NoiseError('Message 2 is read once, after message 1.');
    this.step = 'done';
    if (message.length < DH_LENGTH + TAG_LENGTH) throw new NoiseError('Handshake message 2 is too short.');
    const { state } = this;
    const re = copy(message.subarray(0, DH_LENGTH));
    await state.mixHash(re);
    await state.mixKey(await dh(this.ephemeral, re));
    await state.mixKey(await dh(this.options.staticKeys, re));
    const payload = await state.decryptAndHash(message.subarray(DH_LENGTH));
    const [sendKey, receiveKey] = await state.split();
    return { payload, transport: { sendKey, receiveKey, handshakeHash: state.handshakeHash } };
  }
}

/** The desktop's side: it learns the device's static key from message 1 and decides whether to accept it. */
export class NoiseIKResponder {
  private readonly state = new SymmetricState();
  private remoteEphemeral: Uint8Array<ArrayBuffer> | null = null;
  private remoteStatic: Uint8Array<ArrayBuffer> | null = null;
  private step: 'message1' | 'message2' | 'done' = 'message1';

  constructor(private readonly options: { prologue: Uint8Array; staticKeys: StaticKeyPair; ephemeralKeys?: StaticKeyPair }) {}

  async readMessage1(message: Uint8Array): Promise<{ payload: Uint8Array<ArrayBuffer>; remoteStaticKey: Uint8Array<ArrayBuffer>; remoteEphemeralKey: Uint8Array<ArrayBuffer> }> {
    if (this.step !== 'message1') throw new NoiseError('Message 1 is read once.');
    this.step = 'message2';
    if (message.length < DH_LENGTH + DH_LENGTH + TAG_LENGTH + TAG_LENGTH) throw new NoiseError('Handshake message 1 is too short.');
    const { state } = this;
    const { staticKeys } = this.options;
    await state.initialize(this.options.prologue);
    await state.mixHash(staticKeys.publicKey);
    const re = copy(message.subarray(0, DH_LENGTH));
    this.remoteEphemeral = re;
    await state.mixHash(re);
    await state.mixKey(await dh(staticKeys, re));
    const rs = await state.decryptAndHash(message.subarray(DH_LENGTH, DH_LENGTH * 2 + TAG_LENGTH));
    this.remoteStatic = rs;
    await state.mixKey(await dh(staticKeys, rs));
    const payload = await state.decryptAndHash(message.subarray(DH_LENGTH * 2 + TAG_LENGTH));
    return { payload, remoteStaticKey: copy(rs), remoteEphemeralKey: copy(re) };
  }

  async writeMessage2(payload: Uint8Array): Promise<{ message: Uint8Array<ArrayBuffer>; transport: TransportKeys }> {
    if (this.step !== 'message2' || !this.remoteEphemeral || !this.remoteStatic) throw new NoiseError('Message 2 is written once, after message 1 was read.');
    this.step = 'done';
    const { state } = this;
    const e = this.options.ephemeralKeys ?? (await generateKeyPair());
    await state.mixHash(e.publicKey);
    await state.mixKey(await dh(e, this.remoteEphemeral));
    await state.mixKey(await dh(e, this.remoteStatic));
    const encryptedPayload = await state.encryptAndHash(payload);
    const [receiveKey, sendKey] = await state.split();
    return { message: concat(e.publicKey, encryptedPayload), transport: { sendKey, receiveKey, handshakeHash: state.handshakeHash } };
  }
}
