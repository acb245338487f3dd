import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { browserConnectionEnvironment } from '../../../../lib/client/browserConnectionEnvironment';
import { RuntimeConnection, type ConnectionState } from '../../../../lib/client/connection';
import { openRelayChannel } from '../../../../lib/client/relay/relayChannel';
import { relayDeviceUrl } from '../../../../lib/client/relay/relayPairingLink';
import { pairThroughRelay, RelayPairingError } from '../../../../lib/client/relay/pairThroughRelay';
import { servedByRelay } from '../../../../lib/client/relay/servedByRelay';
import { OPEN_TIMEOUT_CLOSE, type RawRelaySocket, type RelaySocket } from '../../../../lib/client/relay/relaySocket';
import type { RelayCredential } from '../../../../lib/client/appDb';
import { RpcClient } from '../../../../lib/client/rpcClient';
import { ClosedBeforeOpenError, untilOpen } from '../../../../lib/client/untilOpen';
import { base64url } from '../../../../lib/relay/channelCipher';
import { generateKeyPair } from '../../../../lib/relay/noise';
import type { ChannelHello } from '../../../../lib/relay/relayWire';
import { MAX_FRAME_BYTES } from '../../../../lib/protocol/version';
import { FRAME_KIND, startFakeRelay, type DesktopChannel, type FakeRelay } from '../../../fixtures/relay/fakeRelayNode';
import { waitUntil } from '../../../fixtures/waitUntil';

const GOOD_CODE = 'GOOD1CODE';

let relay: FakeRelay | null = null;
afterEach(async () => {
  await relay?.close();
  relay = null;
});

/** A desktop that pairs GOOD_CODE, knows the keys it paired, and runs `run` on each channel. */
async function startRelay(run: (channel: DesktopChannel) => void = () => undefined): Promise<FakeRelay> {
  const known = new Set<string>();
  relay = await startFakeRelay({
    accept(hello: ChannelHello, deviceKey) {
      const key = base64url(deviceKey);
      if (hello.pair) {
        if (hello.pair.code === 'SLOWDOWN') return { welcome: { ok: false, code: 'rate_limited', message: 'Too many wrong codes: try again in a minute.', retryAfterMs: 60_000 } };
        if (hello.pair.code !== GOOD_CODE) return { welcome: { ok: false, code: 'unauthorized', message: 'This pairing code is not valid or was already used.' } };
        known.add(key);
      } else if (!known.has(key)) {
        return { welcome: { ok: false, code: 'unauthorized', message: 'This device is not paired with this desktop.' } };
      }
      return { welcome: { ok: true, deviceId: `device-${key.slice(0, 6)}`, serverVersion: 'test' }, run };
    },
  });
  return relay;
}

const location = (r: FakeRelay) => ({ protocol: 'http:', host: r.host });

/** `ws` on loopback with the relay's public host in the Host header (Node cannot resolve *.localhost). */
const nodeSocket = (r: FakeRelay) => (url: string) => {
  const target = new URL(url);
  return new WebSocket(`ws://127.0.0.1:${r.port}${target.pathname}${target.search}`, { headers: { host: target.host }, perMessageDeflate: false }) as unknown as RawRelaySocket;
};

async function pairedCredential(r: FakeRelay): Promise<RelayCredential> {
  const pairing = await pairThroughRelay({ code: GOOD_CODE, desktop: r.desktopId, key: r.desktopKeyText }, 'Test phone', location(r), nodeSocket(r));
  if (!pairing.relay) throw new Error('a relay pairing has its credential');
  return pairing.relay;
}

type Received = string | Uint8Array;

/** An open channel for a paired device, and everything it received. */
async function openChannel(r: FakeRelay): Promise<{ socket: RelaySocket; received: Received[]; closes: { code?: number; reason?: string }[] }> {
  const credential = await pairedCredential(r);
  const socket = openRelayChannel(credential, location(r), { v: 1 }, nodeSocket(r));
  const received: Received[] = [];
  const closes: { code?: number; reason?: string }[] = [];
  socket.addEventListener('message', (event) => received.push(typeof event.data === 'string' ? event.data : new Uint8Array(event.data as ArrayBuffer)));
  socket.addEventListener('close', (event) => closes.push(event));
  await untilOpen(new RpcClient(socket));
  return { socket, received, closes };
}

describe('RLY-2 pairing and opening a relay channel', () => {
  it('RLY-2 the pairing hello carries the code and the name inside the handshake; the welcome opens the channel', async () => {
    const r = await startRelay();
    const credential = await pairedCredential(r);
    expect(r.hellos).toEqual([{ v: 1, pair: { code: GOOD_CODE, deviceName: 'Test phone' } }]);
    expect(credential.privateKey.extractable).toBe(false);
    expect(credential.desktopId).toBe(r.desktopId);
    // The code and the desktop's key travel nowhere in the clear: only the desktop id is in the URL.
    expect(r.requests.map((q) => q.url)).toEqual([`/relay/device?desktop=${r.desktopId}`]);
    expect(JSON.stringify(r.requests)).not.toContain(GOOD_CODE);
    expect(JSON.stringify(r.requests)).not.toContain(r.desktopKeyText);

    const socket = openRelayChannel(credential, location(r), { v: 1 }, nodeSocket(r));
    expect(socket.readyState).toBe(0);
    await untilOpen(new RpcClient(socket));
    expect(socket.readyState).toBe(1);
    expect(r.hellos.at(-1)).toEqual({ v: 1 });
    socket.close();
  });

  it('RLY-2 a refused welcome closes 4401 with the desktop’s message, so the app shows the pair screen with it', async () => {
    const r = await startRelay();
    const wrong = pairThroughRelay({ code: 'WRONG0CODE', desktop: r.desktopId, key: r.desktopKeyText }, 'Test phone', location(r), nodeSocket(r));
    await expect(wrong).rejects.toEqual(new RelayPairingError('refused', 'This pairing code is not valid or was already used.'));

    const limited = pairThroughRelay({ code: 'SLOWDOWN', desktop: r.desktopId, key: r.desktopKeyText }, 'Test phone', location(r), nodeSocket(r));
    await expect(limited).rejects.toEqual(new RelayPairingError('rate_limited', 'Too many wrong codes: try again in a minute.'));

    // An unknown key without a code: the same refusal path, seen as the socket's close.
    const stranger = await generateKeyPair(false);
    const socket = openRelayChannel({ desktopId: r.desktopId, desktopKey: r.desktopKeyText, ...stranger }, location(r), { v: 1 }, nodeSocket(r));
    const error = await untilOpen(new RpcClient(socket)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClosedBeforeOpenError);
    expect(error).toMatchObject({ closeCode: 4401, closeReason: 'This device is not paired with this desktop.' });
    expect(socket.readyState).toBe(3);
  });

  it('RLY-2 a desktop the relay does not link is "desktop offline" (4404), told in words on the pair screen', async () => {
    const r = await startRelay();
    r.desktopLinked = false;
    const attempt = pairThroughRelay({ code: GOOD_CODE, desktop: r.desktopId, key: r.desktopKeyText }, 'Test phone', location(r), nodeSocket(r));
    await expect(attempt).rejects.toEqual(new RelayPairingError('desktop_offline', 'Your desktop is not connected to the relay. Is the runtime running with --relay?'));
  });

  it('RLY-2 a wrong desktop key: the desktop cannot read the hello, nothing is paired, and no refusal text comes from the relay', async () => {
    const r = await startRelay();
    const other = await generateKeyPair(false);
    const attempt = pairThroughRelay({ code: GOOD_CODE, desktop: r.desktopId, key: base64url(other.publicKey) }, 'Test phone', location(r), nodeSocket(r));
    await expect(attempt).rejects.toMatchObject({ code: 'unreachable' });
    expect(r.hellos).toEqual([]);
  });

  it('RLY-2 a welcome the relay tampered with fails verification and is not a refusal (no pair screen from the relay)', async () => {
    const r = await startRelay();
    r.tamperNextWelcome = true;
    const attempt = pairThroughRelay({ code: GOOD_CODE, desktop: r.desktopId, key: r.desktopKeyText }, 'Test phone', location(r), nodeSocket(r));
    await expect(attempt).rejects.toMatchObject({ code: 'unverified' });
  });
});

describe('RLY-1 telling a relay origin from a desktop runtime', () => {
  it('RLY-1 only a /healthz that says relay counts; a desktop\'s answer, a 404 and no server do not', async () => {
    const answers: Record<string, [number, string]> = { '/relay': [200, '{"ok":true,"relay":true}'], '/desktop': [200, '{"ok":true}'], '/missing': [404, 'Not found'] };
    const plain = http.createServer((req, res) => {
      const [status, body] = answers[req.headers['x-as'] as string] ?? [500, ''];
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    try {
      const host = `127.0.0.1:${(plain.address() as AddressInfo).port}`;
      const as = (who: string) => (url: string, signal: AbortSignal) => fetch(url, { signal, headers: { 'x-as': who } });
      expect(await servedByRelay({ protocol: 'http:', host }, as('/relay'))).toBe(true);
      expect(await servedByRelay({ protocol: 'http:', host }, as('/desktop'))).toBe(false);
      expect(await servedByRelay({ protocol: 'http:', host }, as('/missing'))).toBe(false);
    } finally {
      await new Promise<void>((resolve) => plain.close(() => resolve()));
    }
    expect(await servedByRelay({ protocol: 'http:', host: '127.0.0.1:1' })).toBe(false);
  });
});

describe('RLY-3 frames through the channel', () => {
  it('RLY-3 text and binary frames round-trip in order', async () => {
    const r = await startRelay((channel) => channel.onFrame((kind, data) => void channel.send(kind, data)));
    const { socket, received } = await openChannel(r);
    const sent: Received[] = [];
    for (let i = 0; i < 40; i++) {
      const frame = i % 3 === 0 ? Uint8Array.from({ length: 1 + i * 997 }, (_, j) => (i + j) % 256) : `{"n":${i},"text":"${'é'.repeat(i)}"}`;
      sent.push(frame);
      socket.send(frame);
    }
    await waitUntil(() => received.length === sent.length, () => `all 40 frames come back (${received.length})`);
    expect(received).toEqual(sent);
    expect(socket.droppedFrames).toBe(0);
    socket.close();
  });

  it('RLY-3 a frame of the protocol’s largest size (32 MiB) goes through the channel both ways', async () => {
    const r = await startRelay((channel) => channel.onFrame((kind, data) => void channel.send(kind, data)));
    const { socket, received } = await openChannel(r);
    const big = crypto.getRandomValues(new Uint8Array(65_536));
    const frame = new Uint8Array(MAX_FRAME_BYTES);
    for (let at = 0; at < frame.length; at += big.length) frame.set(big, at);
    socket.send(frame);
    await waitUntil(() => received.length === 1, 'the 32 MiB frame comes back', 60_000);
    const back = received[0] as Uint8Array;
    expect(back.length).toBe(MAX_FRAME_BYTES);
    expect(Buffer.from(back).equals(Buffer.from(frame))).toBe(true);
    socket.close();
  });

  it('RLY-2 a forged or replayed frame from the relay is dropped and counted; the next one still arrives', async () => {
    const r = await startRelay();
    const { socket, received } = await openChannel(r);
    const channel = r.channels.at(-1)!;
    await channel.send(FRAME_KIND.text, 'first');
    await waitUntil(() => received.length === 1, 'the first frame arrives');
    // A relay can only forge bytes, replay a frame it saw, or flip bits of one.
    channel.writeRaw(crypto.getRandomValues(new Uint8Array(64)));
    channel.writeRaw(channel.sentFrames[0]!);
    const genuine = await channel.seal(FRAME_KIND.binary, new Uint8Array([1, 2, 3]));
    const tampered = genuine.slice();
    tampered[tampered.length - 1]! ^= 1;
    channel.writeRaw(tampered);
    channel.writeRaw(genuine);
    await channel.send(FRAME_KIND.text, 'after');
    await waitUntil(() => received.length === 3, () => `three real frames arrive (${received.length})`);
    await waitUntil(() => socket.droppedFrames === 3, () => `three frames are dropped (${socket.droppedFrames})`);
    expect(received).toEqual(['first', new Uint8Array([1, 2, 3]), 'after']);
    expect(socket.readyState).toBe(1);
    socket.close();
  });

  it('RLY-2 the node’s text notices are logged, never delivered as protocol messages', async () => {
    const r = await startRelay();
    const { socket, received } = await openChannel(r);
    const channel = r.channels.at(-1)!;
    channel.writeRaw(JSON.stringify({ type: 'refused', reason: 'too_large', message: 'That frame was too large.' }));
    await channel.send(FRAME_KIND.text, 'next');
    await waitUntil(() => received.length === 1, 'the next frame arrives');
    expect(received).toEqual(['next']);
    expect(socket.notices).toEqual(['too_large: That frame was too large.']);
    // A flood of notices is kept bounded.
    for (let i = 0; i < 100; i++) channel.writeRaw(JSON.stringify({ type: 'refused', reason: 'window', message: `notice ${i}` }));
    await channel.send(FRAME_KIND.text, 'after the flood');
    await waitUntil(() => received.length === 2, 'the frame after the flood arrives');
    expect(socket.notices).toHaveLength(20);
    expect(socket.notices.at(-1)).toBe('window: notice 99');
    socket.close();
  });

  it('RLY-2 the node’s close codes pass through: 4502 when the desktop’s link is lost', async () => {
    const r = await startRelay();
    const { socket, closes } = await openChannel(r);
    r.channels.at(-1)!.close(4502, 'desktop link lost');
    await waitUntil(() => closes.length === 1, 'the channel closes');
    expect(closes).toEqual([{ code: 4502, reason: 'desktop link lost' }]);
    expect(socket.readyState).toBe(3);
  });
});

describe('RLY-2 the runtime connection over a relay channel', () => {
  /** A desktop answering projects.list and recording every method the device calls. */
  function answeringDesktop(methods: string[]) {
    return (channel: DesktopChannel) =>
      channel.onFrame((kind, data) => {
        if (kind !== FRAME_KIND.text) return;
        const request = JSON.parse(new TextDecoder().decode(data)) as { id: number; method: string };
        methods.push(request.method);
        void channel.send(FRAME_KIND.text, JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { projects: [] } }));
      });
  }

  function connectionFor(r: FakeRelay, credential: RelayCredential, openTimeoutMs?: number) {
    const connection = new RuntimeConnection({
      url: relayDeviceUrl(location(r), credential.desktopId),
      token: '',
      authenticate: 'channel',
      environment: {
        ...browserConnectionEnvironment,
        isOnline: () => true,
        isHidden: () => false,
        onWake: () => () => undefined,
        clearCookies: () => undefined,
        createSocket: () => openRelayChannel(credential, location(r), { v: 1 }, nodeSocket(r), undefined, openTimeoutMs),
      },
    });
    const states: ConnectionState[] = [];
    connection.subscribe((state) => states.push(state));
    return { connection, states };
  }

  it('RLY-2 with channel authentication the connection opens without auth.hello, and calls go through', async () => {
    const methods: string[] = [];
    const r = await startRelay(answeringDesktop(methods));
    const credential = await pairedCredential(r);
    const { connection } = connectionFor(r, credential);
    connection.start();
    try {
      const open = await waitUntil(() => (connection.current.kind === 'open' ? connection.current : null), 'the connection opens');
      expect(open.client.httpBytes).toBeNull();
      expect(await open.client.call('projects.list')).toEqual({ projects: [] });
      expect(methods).toEqual(['projects.list']);
    } finally {
      connection.stop();
    }
  });

  it('RLY-2 4404, 4502 and 4429 retry with backoff; a refused key goes to the pair screen with the desktop’s message', async () => {
    const r = await startRelay(answeringDesktop([]));
    const credential = await pairedCredential(r);
    r.desktopLinked = false;
    const offline = connectionFor(r, credential);
    offline.connection.start();
    try {
      await waitUntil(() => offline.connection.current.kind === 'waiting', 'a desktop the relay does not link makes the connection wait and retry');
      expect(offline.connection.current).toMatchObject({ kind: 'waiting', closeCode: 4404 });
      expect(offline.states.some((s) => s.kind === 'unauthorized')).toBe(false);
      r.desktopLinked = true;
      offline.connection.retryNow();
      // The retry says how the socket before it closed, so the app keeps telling the same thing meanwhile.
      expect(offline.connection.current).toEqual({ kind: 'connecting', attempt: 1, closeCode: 4404 });
      await waitUntil(() => offline.connection.current.kind === 'open', 'the retry opens once the desktop is linked');
      r.refuseDevicesWith = 4429;
      r.channels.at(-1)!.close(4502, 'desktop link lost');
      await waitUntil(() => offline.connection.current.kind === 'waiting', 'a lost desktop link makes the connection wait and retry');
      const socketsBefore = r.deviceSockets.length;
      offline.connection.retryNow();
      await waitUntil(() => r.deviceSockets.length > socketsBefore && offline.connection.current.kind === 'waiting', 'a rate-limited retry waits again');
      expect(offline.states.some((s) => s.kind === 'unauthorized')).toBe(false);
      r.refuseDevicesWith = null;
      offline.connection.retryNow();
      await waitUntil(() => offline.connection.current.kind === 'open', 'the connection opens once the relay lets it');
    } finally {
      offline.connection.stop();
    }

    const stranger = await generateKeyPair(false);
    const refused = connectionFor(r, { ...credential, ...stranger });
    refused.connection.start();
    try {
      await waitUntil(() => refused.connection.current.kind === 'unauthorized', 'an unknown key is refused');
      expect(refused.connection.current).toEqual({ kind: 'unauthorized', reason: 'This device is not paired with this desktop.' });
    } finally {
      refused.connection.stop();
    }
  });

  it('RLY-4 a relay that answers neither a welcome nor a close: the channel gives up after its open timeout and the connection retries with backoff', async () => {
    const r = await startRelay(answeringDesktop([]));
    const credential = await pairedCredential(r);
    r.silent = true;
    const silent = connectionFor(r, credential, 300);
    silent.connection.start();
    try {
      const waiting = await waitUntil(() => (silent.connection.current.kind === 'waiting' ? silent.connection.current : null), 'the silent channel times out');
      expect(waiting).toMatchObject({ closeCode: OPEN_TIMEOUT_CLOSE, attempt: 1 });
      // Still silent: the retry times out too, and counts as the next attempt (a longer backoff).
      silent.connection.retryNow();
      const again = await waitUntil(() => (silent.connection.current.kind === 'waiting' && silent.connection.current.attempt === 2 ? silent.connection.current : null), 'the retry times out too');
      expect(again.closeCode).toBe(OPEN_TIMEOUT_CLOSE);
      expect(silent.states.some((s) => s.kind === 'unauthorized')).toBe(false);
      r.silent = false;
      silent.connection.retryNow();
      await waitUntil(() => silent.connection.current.kind === 'open', 'the connection opens once the relay answers');
    } finally {
      silent.connection.stop();
    }
  });

  it('RLY-4 a channel to a silent relay closes with the open timeout’s code and reason, never staying "connecting"', async () => {
    const r = await startRelay();
    r.silent = true;
    const socket = openRelayChannel({ desktopId: r.desktopId, desktopKey: r.desktopKeyText, ...(await generateKeyPair(false)) }, location(r), { v: 1 }, nodeSocket(r), undefined, 300);
    const closed = await new Promise<{ code?: number; reason?: string }>((resolve) => socket.addEventListener('close', resolve));
    expect(closed).toEqual({ code: OPEN_TIMEOUT_CLOSE, reason: 'The desktop did not answer through the relay in time.' });
    expect(socket.readyState).toBe(3);
  });
});
