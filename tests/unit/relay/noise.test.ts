import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gcmNonce, generateKeyPair, importPrivateKey, NoiseError, NoiseIKInitiator, NoiseIKResponder, pkcs8OfRawPrivateKey, type StaticKeyPair } from '../../../lib/relay/noise';

interface Vector {
  init_prologue: string;
  init_static: string;
  init_ephemeral: string;
  init_remote_static: string;
  resp_static: string;
  resp_ephemeral: string;
  handshake_hash: string;
  messages: { payload: string; ciphertext: string }[];
}

const vector = JSON.parse(readFileSync(path.join(import.meta.dirname, '../../fixtures/relay/noise-ik-25519-aesgcm-sha256.json'), 'utf8')) as Vector;
const hex = (text: string) => Uint8Array.from(Buffer.from(text, 'hex'));
const toHex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** A fixed private key of the vector as a key pair, its public key derived by Node. */
async function fixedKeys(privateHex: string): Promise<StaticKeyPair> {
  const pkcs8 = pkcs8OfRawPrivateKey(hex(privateHex));
  const { createPrivateKey, createPublicKey } = await import('node:crypto');
  const jwk = createPublicKey(createPrivateKey({ key: Buffer.from(pkcs8), format: 'der', type: 'pkcs8' })).export({ format: 'jwk' });
  return importPrivateKey(pkcs8, Uint8Array.from(Buffer.from(jwk.x ?? '', 'base64url')));
}

async function transportCiphertext(key: CryptoKey, nonce: bigint, plaintext: Uint8Array): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv: gcmNonce(nonce) }, key, new Uint8Array(plaintext))));
}

describe('Noise_IK_25519_AESGCM_SHA256 (RLY-2)', () => {
  it('reproduces the published test vector byte for byte, both sides', async () => {
    const initiatorStatic = await fixedKeys(vector.init_static);
    const responderStatic = await fixedKeys(vector.resp_static);
    expect(toHex(responderStatic.publicKey)).toBe(vector.init_remote_static);
    const initiator = new NoiseIKInitiator({ prologue: hex(vector.init_prologue), staticKeys: initiatorStatic, remoteStaticKey: responderStatic.publicKey, ephemeralKeys: await fixedKeys(vector.init_ephemeral) });
    const responder = new NoiseIKResponder({ prologue: hex(vector.init_prologue), staticKeys: responderStatic, ephemeralKeys: await fixedKeys(vector.resp_ephemeral) });
    const [m1, m2, m3, m4, m5, m6] = vector.messages;
    if (!m1 || !m2 || !m3 || !m4 || !m5 || !m6) throw new Error('the vector has six messages');

    const message1 = await initiator.writeMessage1(hex(m1.payload));
    expect(toHex(message1)).toBe(m1.ciphertext);
    const read1 = await responder.readMessage1(message1);
    expect(toHex(read1.payload)).toBe(m1.payload);
    expect(toHex(read1.remoteStaticKey)).toBe(toHex(initiatorStatic.publicKey));

    const written2 = await responder.writeMessage2(hex(m2.payload));
    expect(toHex(written2.message)).toBe(m2.ciphertext);
    const read2 = await initiator.readMessage2(written2.message);
    expect(toHex(read2.payload)).toBe(m2.payload);
    expect(toHex(read2.transport.handshakeHash)).toBe(vector.handshake_hash);
    expect(toHex(written2.transport.handshakeHash)).toBe(vector.handshake_hash);

    // Transport messages: initiator → responder with the first split key, counters from 0.
    expect(await transportCiphertext(read2.transport.sendKey, 0n, hex(m3.payload))).toBe(m3.ciphertext);
    expect(await transportCiphertext(written2.transport.sendKey, 0n, hex(m4.payload))).toBe(m4.ciphertext);
    expect(await transportCiphertext(read2.transport.sendKey, 1n, hex(m5.payload))).toBe(m5.ciphertext);
    expect(await transportCiphertext(written2.transport.sendKey, 1n, hex(m6.payload))).toBe(m6.ciphertext);
  });

  it('refuses message 1 for another desktop key, another prologue, or one changed on the way', async () => {
    const desktop = await generateKeyPair();
    const other = await generateKeyPair();
    const device = await generateKeyPair();
    const prologue = new TextEncoder().encode('p');
    const forOther = await new NoiseIKInitiator({ prologue, staticKeys: device, remoteStaticKey: other.publicKey }).writeMessage1(new Uint8Array(3));
    await expect(new NoiseIKResponder({ prologue, staticKeys: desktop }).readMessage1(forOther)).rejects.toBeInstanceOf(NoiseError);

    const good = await new NoiseIKInitiator({ prologue, staticKeys: device, remoteStaticKey: desktop.publicKey }).writeMessage1(new Uint8Array(3));
    await expect(new NoiseIKResponder({ prologue: new TextEncoder().encode('q'), staticKeys: desktop }).readMessage1(good)).rejects.toBeInstanceOf(NoiseError);
    const changed = good.slice();
    changed[40] = (changed[40] ?? 0) ^ 1;
    await expect(new NoiseIKResponder({ prologue, staticKeys: desktop }).readMessage1(changed)).rejects.toBeInstanceOf(NoiseError);
    await expect(new NoiseIKResponder({ prologue, staticKeys: desktop }).readMessage1(good.subarray(0, 50))).rejects.toThrow('too short');
    const accepted = await new NoiseIKResponder({ prologue, staticKeys: desktop }).readMessage1(good);
    expect(toHex(accepted.remoteStaticKey)).toBe(toHex(device.publicKey));
  });

  it('keeps a device key non-extractable and refuses a message 2 from anyone but the desktop', async () => {
    const device = await generateKeyPair(false);
    expect(device.privateKey.extractable).toBe(false);
    await expect(crypto.subtle.exportKey('pkcs8', device.privateKey)).rejects.toThrow();
    const desktop = await generateKeyPair();
    const impostor = await generateKeyPair();
    const prologue = new Uint8Array(0);
    const initiator = new NoiseIKInitiator({ prologue, staticKeys: device, remoteStaticKey: desktop.publicKey });
    const message1 = await initiator.writeMessage1(new Uint8Array(0));
    // The impostor cannot read message 1 (its key is not the one the device named), so it can only answer blindly.
    const blind = new Uint8Array(48);
    blind.set(impostor.publicKey);
    await expect(initiator.readMessage2(blind)).rejects.toBeInstanceOf(NoiseError);
    const responder = new NoiseIKResponder({ prologue, staticKeys: desktop });
    await responder.readMessage1(message1);
    await expect(initiator.readMessage2((await responder.writeMessage2(new Uint8Array(0))).message)).rejects.toThrow('once');
  });
});
