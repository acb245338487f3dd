// RLY-6: TLS passthrough against the real assembly: a real nats-server, two relay nodes as child
// processes with a TLS port each (behind one TCP balancer, the relay's public TLS port), and a
// real runtime linked to node 1 holding the only key for its names. A Node client trusting the
// test CA reaches the desktop's app and /rpc through either node; nothing a node forwards is
// readable, and a name no desktop of the relay owns never reaches one.
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcClient, type WebSocketLike } from '../../../lib/client/rpcClient';
import { PROTOCOL_VERSION } from '../../../lib/protocol/version';
import { decodeLinkFrame, LINK_FRAME } from '../../../lib/relay/relayWire';
import type { RelayNames } from '../../../server/relayLink/relayNameServer';
import { REPO_ROOT } from '../../../server/runtime/paths';
import type { RunningRuntime } from '../../../server/startRuntime';
import { startPassthroughRelay, type PassthroughRelay } from '../../fixtures/relay/passthroughRelay';
import type { TestCertificates } from '../../fixtures/relay/testCertificates';
import { captureNats, type NatsCapture, type RelayNodeHandle } from '../../fixtures/relayNodes';
import type { RuntimeDirs } from '../../fixtures/runtimeDirs';
import type { TcpBalancer } from '../../fixtures/tcpBalancer';
import { waitUntil } from '../../fixtures/waitUntil';

let relay: PassthroughRelay;
let node1: RelayNodeHandle;
let tlsPorts: number[];
let balancer: TcpBalancer;
let capture: NatsCapture;
let dirs: RuntimeDirs;
let certs: TestCertificates;
let names: RelayNames;
let running: RunningRuntime;
/** A line of a project file only the desktop has: it must never cross a node in clear. */
const MARKER = `passthrough-marker-${crypto.randomBytes(12).toString('hex')}`;

const hostOf = (origin: string) => new URL(origin).host;
const nameOf = (origin: string) => new URL(origin).hostname;

interface Fetched {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** GET through the relay's public TLS port, the name in SNI and Host, trusting only the test CA. */
function fetchThroughRelay(origin: string, urlPath: string): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      {
        host: '127.0.0.1',
        port: balancer.port,
        servername: nameOf(origin),
        ca: certs.caPem,
        path: urlPath,
        headers: { host: hostOf(origin) },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end();
  });
}

/** /rpc of the desktop's relay name, opened from its own origin. */
async function openRpcThroughRelay(): Promise<RpcClient> {
  const ws = new WebSocket(`wss://127.0.0.1:${balancer.port}/rpc`, {
    servername: nameOf(names.appOrigin),
    ca: certs.caPem,
    headers: { host: hostOf(names.appOrigin) },
    origin: names.appOrigin,
    perMessageDeflate: false,
  } as WebSocket.ClientOptions);
  const client = new RpcClient(ws as unknown as WebSocketLike);
  await client.opened;
  return client;
}

/** What happens to a raw TCP connection that sends `bytes` to a node's TLS port: it is closed, or still open after the desktop would have answered. */
function sendRaw(port: number, bytes: Buffer): Promise<{ closed: boolean; received: number }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = 0;
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ closed: true, received }));
    socket.write(bytes);
  });
}

/** A ClientHello naming `servername`, as Node's TLS client sends it (to a port that then closes it). */
function tlsClientTo(port: number, servername: string, ALPNProtocols?: string[]): Promise<Error> {
  return new Promise((resolve) => {
    const socket = tls.connect({
      host: '127.0.0.1',
      port,
      servername,
      ca: certs.caPem,
      ...(ALPNProtocols ? { ALPNProtocols } : {}),
    });
    socket.on('secureConnect', () => resolve(new Error('the handshake completed')));
    socket.on('error', (error) => resolve(error));
  });
}

/** The STREAM requests nodes sent to desktops' subjects so far. */
function streamOpens(): number {
  return capture.messages.filter(
    (m) =>
      m.subject.startsWith('hbr.desk.') &&
      m.headers['hbr-k']?.[0] === 'frame' &&
      decodeLinkFrame(m.data).type === LINK_FRAME.stream,
  ).length;
}

async function pairAndCall(): Promise<{ client: RpcClient; deviceId: string }> {
  const { code } = running.runtime.auth.createPairingCode();
  const client = await openRpcThroughRelay();
  const { token, deviceId } = await client.call('pair.redeem', { code, deviceName: 'Passthrough phone' });
  await client.call('auth.hello', { token, protocolVersion: PROTOCOL_VERSION });
  return { client, deviceId };
}

beforeAll(async () => {
  relay = await startPassthroughRelay({
    nodes: 2,
    recordFromBackends: true,
    beforeStart: (made) => fs.writeFileSync(path.join(made.projectDirs[0]!, 'notes.txt'), `${MARKER}\n`),
  });
  ({ tlsPorts, balancer, dirs, certs, names, running } = relay);
  node1 = relay.nodes[0]!;
  capture = await captureNats(relay.nats.url);
}, 180_000);

afterAll(async () => {
  await capture?.stop();
  await relay?.stop();
});

describe('RLY-6 TLS passthrough to the desktop', () => {
  it('RLY-6 the desktop serves its app over TLS on its relay name, and pairs and answers /rpc there', async () => {
    expect(running.relay!.passthroughOrigin).toBe(names.appOrigin);
    const index = await fetchThroughRelay(names.appOrigin, '/');
    expect(index.status).toBe(200);
    expect(index.body).toBe(fs.readFileSync(path.join(REPO_ROOT, 'out', 'index.html'), 'utf8'));
    // The preview name is the shared preview origin (ORG-3): its host page, never the app (ORG-4).
    const preview = await fetchThroughRelay(names.previewOrigin, '/');
    expect(preview.body).not.toBe(index.body);

    const { client, deviceId } = await pairAndCall();
    const projects = await client.call('projects.list');
    expect(projects.projects.map((p) => p.directory)).toEqual(dirs.projectDirs);
    const read = await client.call('files.readContent', { projectDirectory: dirs.projectDirs[0]!, path: 'notes.txt' });
    expect(read.text).toBe(`${MARKER}\n`);
    // pair.create on this origin hands out this origin's own pairing page.
    const created = await client.call('pair.create');
    expect(created.url).toBe(`${names.appOrigin}/pair#code=${encodeURIComponent(created.code)}`);
    expect((await client.call('devices.list')).devices.find((d) => d.current)?.id).toBe(deviceId);
    client.close();
  }, 60_000);

  it('RLY-6 the same through node 2, the desktop linked to node 1: NATS carries the stream', async () => {
    balancer.setBackends([tlsPorts[1]!]);
    const index = await fetchThroughRelay(names.appOrigin, '/index.html');
    expect(index.status).toBe(200);
    const { client } = await pairAndCall();
    const read = await client.call('files.readContent', { projectDirectory: dirs.projectDirs[0]!, path: 'notes.txt' });
    expect(read.text).toBe(`${MARKER}\n`);
    client.close();
    expect(balancer.routed.slice(-2)).toEqual([tlsPorts[1]!, tlsPorts[1]!]);
    balancer.setBackends([tlsPorts[0]!]);
  }, 60_000);

  it('RLY-6 a client’s half-close reaches the desktop, whose answer still comes back, then its own end', async () => {
    // Straight to node 1's TLS port: the test balancer, like many, does not pass half-closes on.
    const socket = tls.connect({
      host: '127.0.0.1',
      port: tlsPorts[0]!,
      servername: nameOf(names.appOrigin),
      ca: certs.caPem,
    });
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise<void>((resolve) => socket.once('end', resolve));
    // An HTTP/1.0 request ends with the client's half-close: the desktop answers, then ends too.
    socket.end(`GET /healthz HTTP/1.0\r\nHost: ${hostOf(names.appOrigin)}\r\n\r\n`);
    await ended;
    const answer = Buffer.concat(chunks).toString('utf8');
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toMatch(/\{"ok":true\}$/);
  }, 30_000);

  it('RLY-6 an ACME TLS-ALPN challenge hello reaches the desktop, which without an ACME client closes it rather than show its certificate', async () => {
    // Through node 2, so the STREAM crosses NATS where this file sees it (node 1 joins its own, RLY-8).
    const before = streamOpens();
    expect(await tlsClientTo(tlsPorts[1]!, nameOf(names.appOrigin), ['acme-tls/1'])).toBeInstanceOf(Error);
    expect(streamOpens()).toBe(before + 1);
  }, 30_000);

  it('RLY-6 no byte a node forwards (on NATS or to the client) holds the served file or the project file in clear', async () => {
    // Both tests above read the marker and the app's index.html through the nodes.
    const appBytes = fs.readFileSync(path.join(REPO_ROOT, 'out', 'index.html')).subarray(0, 64);
    const streamed = capture.messages.filter((m) => m.headers['hbr-k']?.[0] === 'part');
    expect(streamed.reduce((sum, m) => sum + m.data.length, 0)).toBeGreaterThan(appBytes.length);
    for (const needle of [Buffer.from(MARKER), appBytes, Buffer.from('<title>HB Code</title>')]) {
      expect(capture.contains(needle)).toBe(false);
      expect(balancer.fromBackends().includes(needle)).toBe(false);
    }
  });

  it('RLY-6 a name no desktop of this relay owns, no name or no TLS is closed at the node; an unlinked desktop’s name too', async () => {
    const before = streamOpens();
    const unlinked = `${'a'.repeat(32)}.relay.localhost`;
    for (const servername of [
      'example.org',
      `${names.serverNames[0]}.evil.example`,
      'relay.localhost',
      `q-${names.serverNames[0]}`,
    ]) {
      expect(await tlsClientTo(tlsPorts[0]!, servername)).toBeInstanceOf(Error);
    }
    // Node's client sends no SNI to an IP address.
    expect(await tlsClientTo(tlsPorts[0]!, '')).toBeInstanceOf(Error);
    expect(await sendRaw(tlsPorts[0]!, Buffer.from('GET / HTTP/1.1\r\nHost: relay.localhost\r\n\r\n'))).toEqual({
      closed: true,
      received: 0,
    });
    expect(await sendRaw(tlsPorts[0]!, crypto.randomBytes(3000))).toEqual({ closed: true, received: 0 });
    // None of those opened a stream to any desktop.
    expect(streamOpens()).toBe(before);
    // A desktop id nobody linked: the node asks NATS, nobody answers, the connection closes. (This
    // file's NATS capture listens on every subject, so here the node waits out its open timeout.)
    expect(await tlsClientTo(tlsPorts[0]!, unlinked)).toBeInstanceOf(Error);
    expect(streamOpens()).toBe(before + 1);
    await waitUntil(() => /desktop_offline/.test(node1.output()), 'the node logs the unlinked desktop');
    expect(node1.output()).toMatch(/unknown_name/);
    expect(node1.output()).toMatch(/bad_client_hello/);
  }, 60_000);
});
