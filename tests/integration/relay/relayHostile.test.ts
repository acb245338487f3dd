// A hostile relay against the real assembly (RLY-1…RLY-4): a real nats-server, two relay nodes as
// child processes, two real runtimes linked with --relay, and Node devices running the app's
// RelaySocket whose sockets to node 2 pass through a man in the middle that injects, replays,
// changes and drops frames. Every attack is refused; the attacked channel, the other desktop and
// both nodes go on working.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RelayCredential } from '../../../lib/client/appDb';
import { RelayPairingError } from '../../../lib/client/relay/pairThroughRelay';
import { decodeBinaryFrame } from '../../../lib/protocol/binaryFrame';
import { MAX_FRAME_BYTES } from '../../../lib/protocol/version';
import { base64url } from '../../../lib/relay/channelCipher';
import { CHANNEL_WINDOW_BYTES, LINK_FRAME, MAX_CHANNEL_FRAME_BYTES, type RelayPairingLink } from '../../../lib/relay/relayWire';
import { parseCli } from '../../../server/cli';
import { silentLogger, type Logger } from '../../../server/runtime/log';
import { startRuntime, type RunningRuntime } from '../../../server/startRuntime';
import { residentBytes, watchResidentMemory } from '../../fixtures/handshakeSocket';
import { startNatsServer, type NatsServer } from '../../fixtures/natsServer';
import { connectNodeDevice, pairNodeDevice, startNodeRelayConnection, type NodeRelayDevice, type RelayEndpoint } from '../../fixtures/relay/nodeRelayDevice';
import { startTamperingProxy, type ProxiedConnection, type TamperingProxy } from '../../fixtures/relay/tamperingProxy';
import { connectDevice, linkDesktop, openDevice, type TestDesktop } from '../../fixtures/relayClients';
import { startRelayChild, type RelayNodeHandle } from '../../fixtures/relayNodes';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { httpGet } from '../../fixtures/runtimeProcess';
import { createShellSession, isCommandRow, runShell } from '../../fixtures/sessionHelpers';
import { startTcpBalancer, type TcpBalancer } from '../../fixtures/tcpBalancer';
import { steppingClock } from '../../fixtures/steppingClock';
import { waitUntil } from '../../fixtures/waitUntil';

const MiB = 1024 * 1024;
/** Desktop B's pairing-guess limit: small, so a test can reach it through the relay. */
const B_GUESSES = 2;
/** Longer than any test takes: only desktop B's pairing clock, stepped forward, ends it. */
const B_GUESS_WINDOW_MS = 60_000;
/** Desktop A gives up on a socket that stopped reading after this long (SEC-9), so the slow-reader test ends. */
const A_STALL_MS = 6_000;
/** And drops the channel it closed after this long without the node taking its answers (RLY-4; 30 s by default). */
const A_CLOSE_DRAIN_MS = 2_000;
/** Desktop A's frame limit: the runtime's too_large path through the channel a MiB past it, not MAX_FRAME_BYTES (32 MiB). */
const A_FRAME_LIMIT = MiB;
/** 300 reads of 1 MiB: held anywhere without bound, 300 MiB would pile up for the device that does not read. */
const SLOW_READS = 300;
/** What a node may grow by while one of its devices stops reading (the window is ~40 MiB; the runtime holds ~8 MiB past it). */
const NODE_RSS_GROWTH_BOUND = 128 * MiB;
/** An attacker's stream: four windows (~160 MiB), so a node that held it all would break the bound. */
const ATTACK_MIB = Math.ceil((4 * CHANNEL_WINDOW_BYTES) / MiB);

interface Desktop {
  running: RunningRuntime;
  dirs: RuntimeDirs;
  /** The runtime's warnings so far (message and fields). */
  warnings: string[];
  /** A fresh relay pairing link (a new single-use code). */
  link(code?: string): RelayPairingLink;
}

async function startDesktop(relayOrigin: string, env: NodeJS.ProcessEnv, pairingClock?: () => number): Promise<Desktop> {
  const dirs = makeRuntimeDirs();
  const warnings: string[] = [];
  const log: Logger = { ...silentLogger, warn: (message, fields) => warnings.push(`${message} ${JSON.stringify(fields ?? {})}`) };
  const running = await startRuntime(parseCli(['--port', '0', '--data-dir', dirs.dataDir, '--relay', relayOrigin, ...dirs.projectDirs], env), log, { pairingClock });
  const relay = running.relay!;
  await waitUntil(() => relay.linked, 'the runtime links to the relay', 60_000);
  return {
    running,
    dirs,
    warnings,
    link: (code) => ({ code: code ?? running.runtime.auth.createPairingCode().code, desktop: relay.desktopId, key: base64url(relay.noisePublicKey) }),
  };
}

/** A genuine transport frame with a much later nonce and its tag broken: it looks right, it does not open. */
function forgedLike(frame: Buffer): Buffer {
  const forged = Buffer.from(frame);
  forged.writeBigUInt64BE(forged.readBigUInt64BE(0) + 1_000n, 0);
  forged[forged.length - 1]! ^= 0xff;
  return forged;
}

const lastBinary = (frames: { data: Buffer; isBinary: boolean }[]): Buffer => {
  const frame = frames.filter((f) => f.isBinary).at(-1);
  if (!frame) throw new Error('no binary frame recorded');
  return frame.data;
};

describe('RLY-1…RLY-4 a hostile relay against real nodes, runtimes and devices', () => {
  let nats: NatsServer;
  let balancer: TcpBalancer;
  let node1: RelayNodeHandle;
  let node2: RelayNodeHandle;
  let proxy: TamperingProxy;
  let relayOrigin: string;
  let viaProxy: RelayEndpoint;
  let desktopA: Desktop;
  let desktopB: Desktop;
  const clockB = steppingClock();
  let credentialA: RelayCredential;
  let credentialB: RelayCredential;
  let deviceA: NodeRelayDevice;
  let deviceB: NodeRelayDevice;
  let connA: ProxiedConnection;
  let connB: ProxiedConnection;
  let sessionA: string;
  let sessionB: string;
  /** Device A's first handshake message and a chat.send frame, as the relay recorded them. */
  let recordedChatSend: Buffer;
  const devices: NodeRelayDevice[] = [];

  /** A device socket through the proxy, and its proxied connection. */
  async function connectThroughProxy(credential: RelayCredential): Promise<{ device: NodeRelayDevice; conn: ProxiedConnection }> {
    // Pairing used proxied sockets too: the next one is this device's.
    const index = proxy.connections.length;
    const device = await connectNodeDevice(viaProxy, credential);
    devices.push(device);
    return { device, conn: await proxy.connection(index) };
  }

  async function projectCount(device: NodeRelayDevice): Promise<number> {
    return (await device.client.call('projects.list')).projects.length;
  }

  /** Both nodes answer /healthz and both desktops' devices are still served. */
  async function expectAllWell(): Promise<void> {
    for (const node of [node1, node2]) expect((await httpGet(node.port, '/healthz', node.host)).status).toBe(200);
    expect(await projectCount(deviceA)).toBe(1);
    expect(await projectCount(deviceB)).toBe(1);
    expect(deviceA.client.isClosed || deviceB.client.isClosed).toBe(false);
  }

  const commandCount = async (device: NodeRelayDevice, sessionId: string, command: string) =>
    (await device.client.call('sessions.timeline', { sessionId, limit: 500 })).rows.filter(isCommandRow).filter((r) => r.command === command).length;

  beforeAll(async () => {
    nats = await startNatsServer();
    balancer = await startTcpBalancer([]);
    relayOrigin = `http://relay.localhost:${balancer.port}`;
    // Every test connection comes from 127.0.0.1: the per-address connect rate must not be what refuses them.
    const flags = ['--connect-burst', '1000'];
    node1 = await startRelayChild(nats.url, 'node1', balancer.port, flags);
    node2 = await startRelayChild(nats.url, 'node2', balancer.port, flags);
    // Desktop A links to node 1, desktop B to node 2; the devices all reach node 2 through the proxy.
    balancer.setBackends([node1.port]);
    desktopA = await startDesktop(relayOrigin, { HBCODE_SOCKET_STALL_MS: String(A_STALL_MS), HBCODE_CHANNEL_CLOSE_DRAIN_MS: String(A_CLOSE_DRAIN_MS), HBCODE_MAX_FRAME_BYTES: String(A_FRAME_LIMIT) });
    balancer.setBackends([node2.port]);
    desktopB = await startDesktop(relayOrigin, { HBCODE_PAIRING_GUESS_LIMIT: String(B_GUESSES), HBCODE_PAIRING_GUESS_WINDOW_MS: String(B_GUESS_WINDOW_MS) }, clockB.now);
    proxy = await startTamperingProxy(node2.port);
    viaProxy = { port: proxy.port, host: node2.host, origin: relayOrigin };
    credentialA = await pairNodeDevice(viaProxy, desktopA.link(), 'Phone A');
    credentialB = await pairNodeDevice(viaProxy, desktopB.link(), 'Phone B');
    ({ device: deviceA, conn: connA } = await connectThroughProxy(credentialA));
    ({ device: deviceB, conn: connB } = await connectThroughProxy(credentialB));
    sessionA = await createShellSession(deviceA.client);
    sessionB = await createShellSession(deviceB.client);
  }, 240_000);

  afterAll(async () => {
    for (const device of devices) device.close();
    for (const desktop of [desktopA, desktopB]) {
      await desktop?.running.stop();
      desktop?.dirs.remove();
    }
    await proxy?.close();
    for (const node of [node1, node2]) await node?.stop();
    await balancer?.close();
    await nats?.stop();
  });

  it('RLY-2 RLY-3 forged frames toward the desktop and toward the device are dropped and counted; the channel goes on', async () => {
    const desktopDropped = desktopA.running.relay!.droppedFrames;
    await connA.inject('toNode', crypto.randomBytes(200));
    await connA.inject('toNode', forgedLike(lastBinary(connA.toNode)));
    await waitUntil(() => desktopA.running.relay!.droppedFrames === desktopDropped + 2, () => `the desktop drops both forged frames (${desktopA.running.relay!.droppedFrames - desktopDropped})`);

    const deviceDropped = deviceA.socket.droppedFrames;
    await connA.inject('toDevice', crypto.randomBytes(200));
    await connA.inject('toDevice', forgedLike(lastBinary(connA.toDevice)));
    await waitUntil(() => deviceA.socket.droppedFrames === deviceDropped + 2, () => `the device drops both forged frames (${deviceA.socket.droppedFrames - deviceDropped})`);

    // The same channel answers the next call, and a command runs.
    const row = await runShell(deviceA.client, sessionA, 'echo after-forgery');
    expect(row.exitCode).toBe(0);
    expect(desktopB.running.relay!.droppedFrames).toBe(0);
    await expectAllWell();
  }, 90_000);

  it('RLY-3 a replayed chat.send runs once; a replayed answer is not delivered twice', async () => {
    const command = 'echo replayed-once';
    const before = connA.toNode.length;
    const { runId } = await deviceA.client.call('chat.send', { sessionId: sessionA, operationId: crypto.randomUUID(), text: command });
    const sent = connA.toNode.slice(before).filter((f) => f.isBinary);
    expect(sent).toHaveLength(1);
    recordedChatSend = sent[0]!.data;
    const desktopDropped = desktopA.running.relay!.droppedFrames;
    await connA.inject('toNode', sent[0]!.data);
    await connA.inject('toNode', sent[0]!.data);
    await waitUntil(() => desktopA.running.relay!.droppedFrames === desktopDropped + 2, 'the desktop drops both replays');
    await waitUntil(async () => {
      const { rows } = await deviceA.client.call('sessions.timeline', { sessionId: sessionA, limit: 500 });
      return rows.filter(isCommandRow).some((r) => r.runId === runId && r.status !== 'running' && r.complete);
    }, 'the command finishes', 60_000);
    expect(await commandCount(deviceA, sessionA, command)).toBe(1);

    // An answer replayed to the device: dropped, the client sees it once.
    const answers = () => deviceA.texts.filter((t) => t.includes('"projects"')).length;
    const answersBefore = answers();
    const fromNodeBefore = connA.toDevice.length;
    expect(await projectCount(deviceA)).toBe(1);
    await waitUntil(() => answers() === answersBefore + 1, 'the answer is delivered');
    const answerFrames = connA.toDevice.slice(fromNodeBefore).filter((f) => f.isBinary);
    const deviceDropped = deviceA.socket.droppedFrames;
    for (const frame of answerFrames) await connA.inject('toDevice', frame.data);
    await waitUntil(() => deviceA.socket.droppedFrames === deviceDropped + answerFrames.length, 'the device drops the replayed answer');
    expect(answers()).toBe(answersBefore + 1);
    expect(await projectCount(deviceA)).toBe(1);
    expect(answers()).toBe(answersBefore + 2);
    expect(await commandCount(deviceA, sessionA, command)).toBe(1);
    await expectAllWell();
  }, 120_000);

  it('RLY-2 RLY-3 a recorded handshake and request replayed on a new socket: the handshake is refused unanswered, the request does not run', async () => {
    const command = 'echo replayed-once';
    expect(await commandCount(deviceA, sessionA, command)).toBe(1);
    const desktopDropped = desktopA.running.relay!.droppedFrames;
    const replay = openDevice(node2, credentialA.desktopId);
    await replay.opened;
    // A device makes a new ephemeral key for every handshake: a copy of its message 1 is a replay.
    // The desktop neither answers it nor reads its hello, and ends the connection.
    replay.ws.send(connA.toNode[0]!.data);
    const closed = await replay.closed;
    expect(closed.code).toBe(4401);
    expect(closed.reason).toContain('answered before');
    expect(replay.binaries).toHaveLength(0);
    expect(desktopA.running.relay!.droppedFrames).toBe(desktopDropped + 1);
    // And on a socket the relay keeps open, the recorded request after the replayed handshake goes nowhere.
    const again = openDevice(node2, credentialA.desktopId);
    await again.opened;
    again.ws.send(connA.toNode[0]!.data);
    again.ws.send(recordedChatSend);
    expect((await again.closed).code).toBe(4401);
    expect(again.binaries).toHaveLength(0);
    expect(await commandCount(deviceA, sessionA, command)).toBe(1);
    await expectAllWell();
  }, 90_000);

  it("RLY-1 RLY-3 frames of desktop B's channel sent on desktop A's: dropped, nothing runs on either desktop", async () => {
    const command = 'echo only-on-b';
    const before = connB.toNode.length;
    const fromNodeBefore = connB.toDevice.length;
    await runShell(deviceB.client, sessionB, command);
    const bRequests = connB.toNode.slice(before).filter((f) => f.isBinary);
    const bAnswers = connB.toDevice.slice(fromNodeBefore).filter((f) => f.isBinary);
    expect(bRequests.length).toBeGreaterThan(0);
    const aDropped = desktopA.running.relay!.droppedFrames;
    const bDropped = desktopB.running.relay!.droppedFrames;
    // B's whole recording, its handshake's first message included, on A's socket.
    for (const frame of [connB.toNode[0]!, ...bRequests]) await connA.inject('toNode', frame.data);
    await waitUntil(() => desktopA.running.relay!.droppedFrames === aDropped + bRequests.length + 1, 'desktop A drops every frame of B');
    const deviceDropped = deviceA.socket.droppedFrames;
    for (const frame of bAnswers) await connA.inject('toDevice', frame.data);
    await waitUntil(() => deviceA.socket.droppedFrames === deviceDropped + bAnswers.length, "device A drops B's answers");
    expect(desktopB.running.relay!.droppedFrames).toBe(bDropped);
    expect(await commandCount(deviceA, sessionA, command)).toBe(0);
    expect(await commandCount(deviceB, sessionB, command)).toBe(1);
    await expectAllWell();
  }, 120_000);

  it("RLY-1 another desktop's link addressing A's connection ids: refused by the node, nothing reaches A's devices", async () => {
    const attacker: TestDesktop = await linkDesktop(node1);
    // The attacker's own device, to know when the node has handled everything sent before.
    const own = await connectDevice(node2, attacker);
    const deviceDropped = deviceA.socket.droppedFrames;
    const desktopDropped = desktopA.running.relay!.droppedFrames;
    const dataBefore = connA.toDevice.length;
    // Connection ids are `<node>.<counter>`: spray every likely one with data, ACKs and closes.
    for (const node of ['node1', 'node2']) {
      for (let i = 1; i <= 40; i++) {
        const connectionId = `${node}.${i}`;
        if (connectionId === own.connectionId) continue;
        attacker.send({ type: LINK_FRAME.data, connectionId, payload: crypto.randomBytes(64) });
        attacker.send({ type: LINK_FRAME.ack, connectionId, bytes: 1_000_000 });
        attacker.send({ type: LINK_FRAME.close, connectionId, code: 4401, reason: 'hijacked' });
      }
    }
    // The node reads a link's frames in order: once this one arrives, all of the above were handled.
    attacker.send({ type: LINK_FRAME.data, connectionId: own.connectionId, payload: Buffer.from('sentinel') });
    await waitUntil(() => own.device.binaries.some((b) => b.toString() === 'sentinel'), 'the attacker reaches its own device');
    expect(node1.output()).toMatch(/refused foreign_connection/);
    own.device.ws.close();
    // Nothing reached device A (no frame, no close), and both desktops still serve their devices.
    expect(await projectCount(deviceA)).toBe(1);
    expect(connA.toDevice.slice(dataBefore).filter((f) => !f.isBinary)).toHaveLength(0);
    expect(deviceA.socket.droppedFrames).toBe(deviceDropped);
    expect(desktopA.running.relay!.droppedFrames).toBe(desktopDropped);
    expect(connA.isOpen && connB.isOpen).toBe(true);
    attacker.socket.ws.close();
    await expectAllWell();
  }, 90_000);

  it('RLY-2 a relay closing a device with 4401 cannot send it to the pair screen; the desktop\'s own revocation still does', async () => {
    const credential = await pairNodeDevice(viaProxy, desktopA.link(), 'Phone C');
    const index = proxy.connections.length;
    const { connection, states } = startNodeRelayConnection(viaProxy, credential);
    const isOpen = () => connection.current.kind === 'open';
    try {
      await waitUntil(isOpen, 'the connection opens', 60_000);
      const conn = await proxy.connection(index);
      // The relay's forged close: the code and words the desktop uses for a revoked device.
      const mark = states.length;
      conn.device.close(4401, 'This device was revoked on the desktop.');
      const after = () => states.slice(mark).map((s) => s.kind);
      await waitUntil(() => {
        if (connection.current.kind === 'waiting') connection.retryNow();
        return after().includes('unauthorized') || (after().length > 1 && isOpen());
      }, () => `the connection settles (states: ${after().join(', ')})`, 60_000);
      expect(after()).not.toContain('unauthorized');
      const open = connection.current;
      if (open.kind !== 'open') throw new Error('the connection is not open');
      expect((await open.client.call('projects.list')).projects).toHaveLength(1);

      // The desktop revokes it: the relay's close is not believed either, but the next handshake's welcome is.
      // (On the desktop itself, which acts at once: another device's revoke would wait for Phone C to confirm, DEV-2.)
      const { devices: list } = await deviceA.client.call('devices.list');
      desktopA.running.runtime.devicePowers.revoke(null, list.find((d) => d.name === 'Phone C')!.id);
      const refused = await waitUntil(() => {
        if (connection.current.kind === 'waiting') connection.retryNow();
        return connection.current.kind === 'unauthorized' ? connection.current : null;
      }, () => `the revoked device is sent to the pair screen (states: ${states.map((s) => s.kind).join(', ')})`, 60_000);
      expect(refused.reason).toMatch(/revoked/);
    } finally {
      connection.stop();
    }
    await expectAllWell();
  }, 150_000);

  it('RLY-2 SEC-9 a wrong code through the relay is refused in the encrypted welcome and counts against the one guess limit; the right code pairs later', async () => {
    const right = desktopB.link();
    for (let i = 0; i < B_GUESSES; i++) {
      const refused = await pairNodeDevice(viaProxy, { ...right, code: `WRONG-${i}0000` }, 'Guesser').then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(RelayPairingError);
      expect(refused).toMatchObject({ code: 'refused', message: expect.stringMatching(/wrong, used or expired/) });
    }
    // The limit is reached: even the right code is not evaluated now.
    const limited = await pairNodeDevice(viaProxy, right, 'Phone B2').then(
      () => null,
      (error: unknown) => error,
    );
    expect(limited).toMatchObject({ code: 'rate_limited', message: expect.stringMatching(/Too many pairing attempts/) });
    // Desktop B's clock steps half the window on: still limited; then the rest: the right code pairs.
    clockB.advance(B_GUESS_WINDOW_MS / 2);
    const stillLimited = await pairNodeDevice(viaProxy, right, 'Phone B2').then(
      () => null,
      (error: unknown) => error,
    );
    expect(stillLimited).toMatchObject({ code: 'rate_limited' });
    clockB.advance(B_GUESS_WINDOW_MS / 2);
    const paired = await pairNodeDevice(viaProxy, right, 'Phone B2');
    const { device } = await connectThroughProxy(paired);
    expect(await projectCount(device)).toBe(1);
    expect((await device.client.call('devices.list')).devices.map((d) => d.name).sort()).toEqual(['Phone B', 'Phone B2']);
    await expectAllWell();
  }, 150_000);

  it('RLY-1 RLY-3 oversize frames: the node refuses them with too_large and goes on; a frame one byte over the runtime\'s limit in the channel gets too_large from it', async () => {
    // From the device: a notice, the socket stays open, its next frame is delivered.
    await connA.inject('toNode', Buffer.alloc(MAX_CHANNEL_FRAME_BYTES + 1, 7));
    await waitUntil(() => deviceA.socket.notices.some((n) => n.startsWith('too_large')), () => `the device hears too_large (${deviceA.socket.notices.join('; ')})`, 60_000);
    expect(await projectCount(deviceA)).toBe(1);

    // From a desktop-side attacker with a device of its own: refused, its next DATA still goes through.
    const attacker = await linkDesktop(node1);
    const { device, connectionId } = await connectDevice(node2, attacker);
    attacker.send({ type: LINK_FRAME.data, connectionId, payload: Buffer.alloc(MAX_CHANNEL_FRAME_BYTES + 1, 9) });
    attacker.send({ type: LINK_FRAME.data, connectionId, payload: Buffer.from('after the oversize frame') });
    await waitUntil(() => device.binaries.some((b) => b.toString() === 'after the oversize frame'), 'the next DATA reaches the device', 60_000);
    expect(device.binaries.every((b) => b.length < MAX_CHANNEL_FRAME_BYTES)).toBe(true);
    expect(node1.output()).toMatch(/refused too_large/);
    device.ws.close();
    attacker.socket.ws.close();

    // Inside the channel: one protocol frame a byte over desktop A's limit, sealed (it fits the channel's limit).
    expect(A_FRAME_LIMIT).toBeLessThan(MAX_FRAME_BYTES);
    const id = 987_654;
    const head = `{"jsonrpc":"2.0","id":${id},"method":"projects.list","params":{"pad":"`;
    const tail = '"}}';
    const big = head + 'x'.repeat(A_FRAME_LIMIT + 1 - head.length - tail.length) + tail;
    expect(Buffer.byteLength(big)).toBe(A_FRAME_LIMIT + 1);
    deviceA.socket.send(big);
    const answer = await waitUntil(
      () => deviceA.texts.map((t) => JSON.parse(t) as { id?: unknown; error?: { data?: { code?: string } } }).find((m) => m.id === id),
      'the runtime answers the oversize frame',
      90_000,
    );
    expect(answer.error?.data).toMatchObject({ code: 'too_large', limit: A_FRAME_LIMIT });
    expect(await projectCount(deviceA)).toBe(1);
    await expectAllWell();
  }, 240_000);

  it('RLY-4 a device that stops reading while the desktop streams to it: both nodes stay bounded, another device on its node is unaffected', async () => {
    const projectDir = desktopA.dirs.projectDirs[0]!;
    const bytes = crypto.randomBytes(4 * MiB);
    fs.writeFileSync(path.join(projectDir, 'big.bin'), bytes);
    const { device: slow, conn: slowConn } = await connectThroughProxy(credentialA);
    expect(await projectCount(slow)).toBe(1);
    const channelsBefore = desktopA.running.relay!.buffers.channels.length;
    const rssBefore = [residentBytes(node1.pid!), residentBytes(node2.pid!)];
    const watches = [watchResidentMemory(node1.pid!), watchResidentMemory(node2.pid!)];
    slowConn.stopReadingFromNode();
    for (let i = 0; i < SLOW_READS; i++) {
      slow.socket.send(JSON.stringify({ jsonrpc: '2.0', id: 50_000 + i, method: 'files.readBinary', params: { projectDirectory: projectDir, path: 'big.bin', offset: (i % 4) * MiB, length: MiB, transfer: 'binary' } }));
    }
    // Meanwhile device A, on the same node, reads the same file byte-exact.
    const { result, data } = await deviceA.client.callBinary('files.readBinary', { projectDirectory: projectDir, path: 'big.bin', offset: MiB, length: MiB });
    expect(result.byteCount).toBe(MiB);
    expect(Buffer.from(data).equals(bytes.subarray(MiB, 2 * MiB))).toBe(true);

    // The runtime holds the answers the node does not take, then gives up on the device (SEC-9).
    const stall = () => desktopA.warnings.map((w) => /closing a socket that stopped reading its answers \{"queuedBytes":(\d+)\}/.exec(w)).find((m) => m !== null);
    const stalled = await waitUntil(stall, () => `the runtime gives up on the slow device (${slow.texts.length} texts reached it; warnings: ${desktopA.warnings.slice(-5).join('; ')})`, 90_000);
    // What it held when it gave up: several answers (the exact amount depends on what the window let out last).
    expect(Number(stalled[1])).toBeGreaterThan(MiB);
    expect(await projectCount(deviceA)).toBe(1);
    await waitUntil(() => desktopA.running.relay!.buffers.channels.length < channelsBefore, 'the runtime closes the stalled channel', 90_000);
    const peaks = watches.map((w) => w.stop());
    const growth = peaks.map((peak, i) => peak - rssBefore[i]!);
    console.log(`relay slow reader: node 1 RSS +${(growth[0]! / MiB).toFixed(0)} MiB, node 2 RSS +${(growth[1]! / MiB).toFixed(0)} MiB (bound ${NODE_RSS_GROWTH_BOUND / MiB} MiB; ${SLOW_READS} MiB requested)`);
    for (const g of growth) expect(g).toBeLessThan(NODE_RSS_GROWTH_BOUND);

    // Reading again, the slow device gets what the node held, then the close.
    let binaries = 0;
    slow.socket.addEventListener('message', (event) => {
      if (event.data instanceof ArrayBuffer) {
        const frame = decodeBinaryFrame(new Uint8Array(event.data));
        const offset = (((frame.header as { id: number }).id - 50_000) % 4) * MiB;
        if (Buffer.from(frame.data).equals(bytes.subarray(offset, offset + MiB))) binaries++;
      }
    });
    slowConn.resumeReadingFromNode();
    await waitUntil(() => slow.client.isClosed, 'the slow device is closed', 60_000);
    expect(binaries).toBeLessThan(SLOW_READS);
    await expectAllWell();
  }, 240_000);

  it('RLY-4 a desktop-side attacker streaming past the window to a device that does not read: closed 1008, both nodes bounded', async () => {
    const attacker = await linkDesktop(node1);
    const own = await connectDevice(node2, attacker);
    own.device.ws.pause();
    const rssBefore = [residentBytes(node1.pid!), residentBytes(node2.pid!)];
    const watches = [watchResidentMemory(node1.pid!), watchResidentMemory(node2.pid!)];
    const chunk = crypto.randomBytes(MiB);
    const closedByNode = () => attacker.frames().find((f) => f.type === LINK_FRAME.close && f.connectionId === own.connectionId);
    let sent = 0;
    // Up to 4 windows' worth, ignoring every ACK: the node must close the connection long before.
    while (sent < ATTACK_MIB && !closedByNode()) {
      attacker.send({ type: LINK_FRAME.data, connectionId: own.connectionId, payload: chunk });
      sent++;
      if (attacker.socket.ws.bufferedAmount > 8 * MiB) await waitUntil(() => attacker.socket.ws.bufferedAmount <= 8 * MiB || closedByNode(), 'the attacker\'s link drains');
    }
    const closed = await waitUntil(closedByNode, 'node 1 closes the connection past its window', 60_000);
    expect(closed).toMatchObject({ code: 1008 });
    expect(sent).toBeLessThan(ATTACK_MIB);
    expect(node1.output()).toMatch(/refused window_exceeded/);
    const peaks = watches.map((w) => w.stop());
    const growth = peaks.map((peak, i) => peak - rssBefore[i]!);
    console.log(`relay window attack: ${sent} MiB sent before the close; node 1 RSS +${(growth[0]! / MiB).toFixed(0)} MiB, node 2 RSS +${(growth[1]! / MiB).toFixed(0)} MiB (bound ${NODE_RSS_GROWTH_BOUND / MiB} MiB)`);
    for (const g of growth) expect(g).toBeLessThan(NODE_RSS_GROWTH_BOUND);
    own.device.ws.resume();
    await waitUntil(() => own.device.closeEvent, 'the device is closed', 60_000);
    attacker.socket.ws.close();
    await expectAllWell();
  }, 180_000);
});
