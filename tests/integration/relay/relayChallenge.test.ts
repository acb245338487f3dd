import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAY_CLOSE_CODES, RELAY_DESKTOP_PATH } from '../../../lib/relay/relayWire';
import { desktopIdOf } from '../../../lib/relay/desktopId';
import { startNatsServer, type NatsServer } from '../../fixtures/natsServer';
import {
  linkDesktop,
  makeDesktopKeys,
  openRelaySocket,
  readChallenge,
  registerMessage,
  type DesktopKeys,
} from '../../fixtures/relayClients';
import { startRelayNodes, type RelayNodeHandle } from '../../fixtures/relayNodes';

// RLY-1: a desktop links only by proving the key its id is made from, on this relay, for this nonce.
let nats: NatsServer;
let node: RelayNodeHandle;

beforeAll(async () => {
  nats = await startNatsServer();
  node = (await startRelayNodes({ natsUrl: nats.url, count: 1, options: { registerTimeoutMs: 1_500 } }))[0]!;
}, 120_000);

afterAll(async () => {
  await node?.stop();
  await nats?.stop();
});

/** Opens a desktop link and answers its challenge as `keys` would, broken as `tamper` says. */
async function answer(
  keys: DesktopKeys,
  tamper: Parameters<typeof registerMessage>[2] | 'silent' | 'garbage' | 'binary',
) {
  const socket = openRelaySocket(node, RELAY_DESKTOP_PATH, null);
  await socket.opened;
  const challenge = await readChallenge(socket);
  if (tamper === 'garbage') socket.ws.send('{"type":"register"');
  else if (tamper === 'binary') socket.ws.send(Buffer.from([1, 2, 3]));
  else if (tamper !== 'silent') socket.ws.send(registerMessage(keys, challenge, tamper));
  return { socket, challenge, closed: await socket.closed };
}

describe('the desktop challenge', () => {
  it('derives the desktop id from the key: base32 of the first 20 bytes of its SHA-256', () => {
    const raw = Buffer.alloc(32, 7);
    const id = desktopIdOf(raw);
    expect(id).toMatch(/^[a-z2-7]{32}$/);
    const digest = crypto.createHash('sha256').update(raw).digest().subarray(0, 20);
    // Decode the base32 back and compare with the digest bytes.
    let bits = '';
    for (const ch of id) bits += 'abcdefghijklmnopqrstuvwxyz234567'.indexOf(ch).toString(2).padStart(5, '0');
    const bytes = Buffer.from(Array.from({ length: 20 }, (_, i) => parseInt(bits.slice(i * 8, i * 8 + 8), 2)));
    expect(bytes.equals(digest)).toBe(true);
  });

  it('sends the relay’s public URL with a fresh nonce each time, and nothing else', async () => {
    const a = await linkDesktop(node);
    const b = await linkDesktop(node);
    expect(a.challenge.publicUrl).toBe(node.publicUrl);
    expect(Object.keys(JSON.parse(a.socket.texts[0]!) as object).sort()).toEqual(['nonce', 'publicUrl', 'type']);
    expect(a.challenge.nonce).not.toBe(b.challenge.nonce);
    a.socket.ws.close();
    b.socket.ws.close();
  });

  it('refuses a wrong signature, an id not made from the key, a signature over another nonce, garbage and silence (4401); the node stays up', async () => {
    const keys = makeDesktopKeys();
    const refusals = [
      await answer(keys, { signWith: makeDesktopKeys().privateKey }),
      await answer(keys, { desktopId: makeDesktopKeys().desktopId }),
      await answer(keys, { message: 'hbcode-relay-register/v1\nhttp://elsewhere.localhost\nAAAA' }),
      await answer(keys, 'garbage'),
      await answer(keys, 'binary'),
      await answer(keys, 'silent'),
    ];
    for (const refusal of refusals) expect(refusal.closed.code).toBe(RELAY_CLOSE_CODES.unauthorized);
    const stats = node.stats()!;
    expect(stats.refusals.challenge_failed).toBe(5);
    expect(stats.refusals.challenge_timeout).toBe(1);
    expect(stats.desktopLinks).toBe(0);
    expect(node.output()).not.toContain(refusals[0]!.challenge.nonce);
    // Still serving: the right answer links.
    const linked = await linkDesktop(node, keys);
    expect(node.stats()!.desktopLinks).toBe(1);
    linked.socket.ws.close();
  }, 60_000);
});
