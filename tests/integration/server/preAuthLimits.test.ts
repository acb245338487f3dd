import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '../../../lib/protocol/version';
import { DEFAULT_SOCKET_LIMITS } from '../../../server/rpc/socketLimits';
import {
  clientFrameHeader,
  HandshakeSocket,
  OPCODE_TEXT,
  residentBytes,
  watchResidentMemory,
} from '../../fixtures/handshakeSocket';
import { RawRpcSocket } from '../../fixtures/rawSocket';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';

const MiB = 1024 * 1024;
/** What one frame may announce before `ws` refuses it outright (its maxPayload, 128 MiB). */
const ANNOUNCED_FRAME_BYTES = 127 * MiB;
const FAST_SENDERS = 6;
const SLOW_SENDERS = 2;
/** Each fast sender offers this much of its frame; unbounded, the runtime would hold all of it. */
const FAST_SENDER_BYTES = 40 * MiB;
/** The runtime may grow this much while the senders try; unbounded it grows by 240 MiB. */
const RSS_GROWTH_BOUND = 64 * MiB;
/** The bytes a socket may send before auth.hello here (64 KiB by default): a trickling sender reaches it in seconds. */
const PRE_AUTH_BYTES = 16 * 1024;

async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms)),
  );
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Announces a giant text frame, then sends its bytes as fast as the runtime takes them. */
async function sendGiantFrame(socket: HandshakeSocket, bytes: number): Promise<number> {
  const mask = crypto.randomBytes(4);
  await socket.write(clientFrameHeader(OPCODE_TEXT, ANNOUNCED_FRAME_BYTES, mask));
  const chunk = Buffer.alloc(256 * 1024, 0x61);
  let sent = 0;
  try {
    while (sent < bytes && !socket.isGone) {
      await socket.write(chunk);
      sent += chunk.length;
    }
  } catch {
    // The runtime closed the socket: that is what is being tested.
  }
  return sent;
}

/** Announces a giant frame and trickles it, 1 KiB at a time, until the runtime lets go. */
async function trickleGiantFrame(socket: HandshakeSocket): Promise<void> {
  await socket.write(clientFrameHeader(OPCODE_TEXT, ANNOUNCED_FRAME_BYTES, crypto.randomBytes(4)));
  const chunk = Buffer.alloc(1024, 0x62);
  try {
    for (let i = 0; i < 900 && !socket.isGone; i++) {
      await socket.write(chunk);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch {
    // Closed by the runtime.
  }
}

describe('SEC-9 unauthenticated sockets', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    runtime = await startRuntimeProcess({
      dataDir: dirs.dataDir,
      projectDirs: dirs.projectDirs,
      env: { HBCODE_PRE_AUTH_BYTES: String(PRE_AUTH_BYTES) },
    });
  });
  afterAll(async () => {
    await runtime?.stop();
    dirs?.remove();
  });

  it('SEC-9 sockets announcing 127 MiB frames before auth.hello do not pin memory and are closed; a device still pairs meanwhile', async () => {
    const admin = await runtime.connect();
    await admin.call('projects.list');
    const before = residentBytes(runtime.child.pid!);
    const memory = watchResidentMemory(runtime.child.pid!);

    const fast = await Promise.all(Array.from({ length: FAST_SENDERS }, () => HandshakeSocket.open(runtime)));
    const slow = await Promise.all(Array.from({ length: SLOW_SENDERS }, () => HandshakeSocket.open(runtime)));
    const trickles = slow.map((socket) => trickleGiantFrame(socket));
    const floods = fast.map((socket) => sendGiantFrame(socket, FAST_SENDER_BYTES));

    // Meanwhile a new device pairs and authenticates on a socket of its own.
    const { code } = await admin.call('pair.create');
    const phone = runtime.openSocket();
    await phone.opened;
    const { token } = await phone.call('pair.redeem', { code, deviceName: 'Phone during the flood' });
    const hello = await phone.call('auth.hello', { token, protocolVersion: PROTOCOL_VERSION });
    expect(hello.deviceId).toEqual(expect.any(String));
    expect((await phone.call('projects.list')).projects).toHaveLength(1);

    const sent = await withDeadline(Promise.all(floods), 120_000, 'the fast senders finishing');
    await withDeadline(
      Promise.all([...fast, ...slow].map((socket) => socket.gone)),
      60_000,
      'every unauthenticated socket closing',
    );
    await withDeadline(Promise.all(trickles), 30_000, 'the slow senders stopping');
    const peak = memory.stop();
    console.log(
      `pre-auth flood: RSS ${(before / MiB).toFixed(0)} MiB before, peak ${(peak / MiB).toFixed(0)} MiB; fast senders got ${sent.map((n) => (n / MiB).toFixed(1)).join(', ')} MiB in`,
    );

    expect(peak - before).toBeLessThan(RSS_GROWTH_BOUND);
    expect(runtime.child.exitCode).toBeNull();
    expect((await phone.call('projects.list')).projects).toHaveLength(1);
    phone.close();
    admin.close();
  });

  it('SEC-9 a socket told to close before auth.hello cannot then send a giant frame: the budget still counts until it is gone', async () => {
    const before = residentBytes(runtime.child.pid!);
    const memory = watchResidentMemory(runtime.child.pid!);
    const sockets = await Promise.all(Array.from({ length: FAST_SENDERS }, () => HandshakeSocket.open(runtime)));
    // A first call other than auth.hello closes the socket politely (RPC-2); the peer never answers the close.
    for (const socket of sockets) await socket.sendRequest('projects.list');
    const closes = await withDeadline(
      Promise.all(sockets.map((socket) => socket.closeFrame())),
      30_000,
      'the close frames',
    );
    expect(closes.map((close) => close?.code)).toEqual(sockets.map(() => 4401));
    const sent = await withDeadline(
      Promise.all(sockets.map((socket) => sendGiantFrame(socket, FAST_SENDER_BYTES))),
      120_000,
      'the senders finishing',
    );
    await withDeadline(Promise.all(sockets.map((socket) => socket.gone)), 60_000, 'every closed socket going');
    const peak = memory.stop();
    console.log(
      `flood after a polite close: RSS ${(before / MiB).toFixed(0)} MiB before, peak ${(peak / MiB).toFixed(0)} MiB; senders got ${sent.map((n) => (n / MiB).toFixed(1)).join(', ')} MiB in`,
    );
    for (const bytes of sent) expect(bytes).toBeLessThan(FAST_SENDER_BYTES);
    expect(peak - before).toBeLessThan(RSS_GROWTH_BOUND);
    expect(runtime.child.exitCode).toBeNull();
  });

  it('SEC-9 a socket past the cap of unauthenticated ones is closed with 1013; authenticated sockets do not count against it', async () => {
    const admin = await RawRpcSocket.authenticated(runtime);
    const waiting = await Promise.all(
      Array.from({ length: DEFAULT_SOCKET_LIMITS.maxUnauthenticatedSockets }, () => RawRpcSocket.open(runtime)),
    );
    const extra = await RawRpcSocket.open(runtime);
    const refused = await withDeadline(extra.closed, 10_000, 'the socket over the cap closing');
    expect(refused.code).toBe(1013);
    expect(refused.reason).toMatch(/too many/i);
    // Those already waiting, and the authenticated one, are unaffected.
    expect(waiting.every((socket) => !socket.isClosed)).toBe(true);
    expect(await admin.request('projects.list')).toHaveProperty('result');

    // Once one of the waiting sockets goes, a new socket is accepted and can authenticate.
    waiting[0]!.close();
    await waiting[0]!.closed;
    const next = await pollUntilAccepted(runtime);
    expect(await next.request('projects.list')).toHaveProperty('result');
    next.close();
    for (const socket of waiting) socket.close();
    admin.close();
  });
});

/** The server sees the closed socket a moment after the client: retry until a new one authenticates. */
async function pollUntilAccepted(runtime: RuntimeProcess): Promise<RawRpcSocket> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await RawRpcSocket.authenticated(runtime);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
