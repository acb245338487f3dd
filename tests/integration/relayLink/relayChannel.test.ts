import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { FRAME_KIND } from '../../../lib/relay/channelCipher';
import { MAX_FRAME_BYTES } from '../../../lib/protocol/version';
import type { RelayPairingLink } from '../../../lib/relay/relayWire';
import { decodeTerminalQr } from '../../fixtures/qrDecode';
import type { FakeDesktopLink, FakeRelayNode } from '../../fixtures/fakeRelayNode';
import { openRelayChannel, parseRelayPairingLink, startLinkedRuntime, type LinkedRuntime, type RelayChannel } from '../../fixtures/relayDevice';
import type { RuntimeProcess } from '../../fixtures/runtimeProcess';
import { createShellSession, readWholeOutput, runShell } from '../../fixtures/sessionHelpers';
import { waitUntil } from '../../fixtures/waitUntil';

const MiB = 1024 * 1024;
/** The runtime's frame limit here: the same too_large path as the 32 MiB of MAX_FRAME_BYTES, a MiB past it instead of 32. */
const FRAME_LIMIT = MiB;

/** A new code for the next pairing, asked for on the local app socket. */
async function newCode(admin: RpcClient): Promise<string> {
  return (await admin.call('pair.create')).code;
}

describe('RLY-2 RLY-3 the desktop linked to a relay', () => {
  let linked: LinkedRuntime;
  let relay: FakeRelayNode;
  let runtime: RuntimeProcess;
  let admin: RpcClient;
  let link: FakeDesktopLink;
  let pairing: RelayPairingLink;
  let paired: RelayChannel;

  beforeAll(async () => {
    linked = await startLinkedRuntime({ HBCODE_MAX_FRAME_BYTES: String(FRAME_LIMIT) });
    ({ relay, runtime, admin, link, pairing } = linked);
  }, 60_000);
  afterAll(() => linked?.stop());

  it('RLY-2 registers with an Ed25519 proof of its desktop id, keeps its identity owner-only, and the local app still works', async () => {
    expect(link.verified).toBe(true);
    expect(link.register?.desktopId).toBe(pairing.desktop);
    expect(runtime.output()).toContain(`desktop ${pairing.desktop}`);
    // The relay's QR code is of the relay link, whose code is the one the local link prints too.
    // It is read once printed whole: the link may be up before the last of its lines arrived.
    const qrBlock = () => {
      const lines = runtime.output().split('\n');
      const start = lines.findIndex((line) => line.includes('phone on any network'));
      const end = start < 0 ? -1 : lines.findIndex((line, i) => i > start && line.trim() === '');
      return { lines, start, end };
    };
    await waitUntil(() => qrBlock().end > 0, 'the relay QR code is printed whole');
    const { lines, start, end } = qrBlock();
    const relayUrl = /through the relay \(same code\): (\S+)/.exec(runtime.output())?.[1];
    expect(decodeTerminalQr(lines.slice(start + 1, end))).toBe(relayUrl);
    expect(runtime.output()).toContain(`Pair a device (code ${pairing.code},`);
    const identityFile = path.join(runtime.dataDir, 'relay-identity.json');
    expect(fs.statSync(identityFile).mode & 0o777).toBe(0o600);
    expect((await admin.call('projects.list')).projects).toHaveLength(1);
  });

  it('RLY-2 RLY-3 a device pairs by code inside the channel and calls methods; pair.create and preview.open answer for the relay', async () => {
    paired = await openRelayChannel(link.open(), pairing, { v: 1, pair: { code: pairing.code, deviceName: 'Relay phone' } });
    expect(paired.welcome).toMatchObject({ ok: true, serverVersion: expect.any(String) });
    const client = paired.client!;
    expect((await client.call('projects.list')).projects[0]?.directory).toBe(runtime.projectDir);
    expect((await client.call('sessions.list')).sessions).toEqual([]);
    const devices = (await admin.call('devices.list')).devices;
    expect(devices.map((d) => d.name)).toContain('Relay phone');
    if (paired.welcome.ok) expect((await client.call('devices.list')).devices.find((d) => d.current)?.id).toBe(paired.welcome.deviceId);

    const created = await client.call('pair.create');
    const relayLink = parseRelayPairingLink(created.url);
    expect(created.url.startsWith(`${relay.publicUrl}/pair#`)).toBe(true);
    expect(relayLink).toEqual({ code: created.code, desktop: pairing.desktop, key: pairing.key });

    fs.writeFileSync(path.join(runtime.projectDir, 'page.html'), '<p>hi</p>');
    const previewId = crypto.randomBytes(16).toString('hex');
    const preview = await client.call('preview.open', { previewId, projectDirectory: runtime.projectDir, path: 'page.html' });
    expect(preview.origin).toBe(`http://p-${previewId}.relay.localhost:${relay.port}`);
    const local = await admin.call('preview.open', { previewId: crypto.randomBytes(16).toString('hex'), projectDirectory: runtime.projectDir, path: 'page.html' });
    expect(local.origin).toContain('.hbcode.localhost:');
  });

  it('RLY-3 a binary answer comes through the channel byte-exact', async () => {
    const bytes = crypto.randomBytes(3 * MiB + 17);
    fs.writeFileSync(path.join(runtime.projectDir, 'blob.bin'), bytes);
    const { result, data } = await paired.client!.callBinary('files.readBinary', { projectDirectory: runtime.projectDir, path: 'blob.bin', offset: 5 });
    expect(result.dataBase64).toBe('');
    expect(Buffer.from(data).equals(bytes.subarray(5))).toBe(true);
  });

  it('RLY-3 a shell command run through the channel: its notifications reach the channel, its output reads back byte-exact in binary frames', async () => {
    const client = paired.client!;
    const output = crypto.randomBytes(700 * 1024);
    fs.writeFileSync(path.join(runtime.projectDir, 'out.bin'), output);
    let changes = 0;
    const unsubscribe = client.onNotification('sessions.changed', () => changes++);
    const sessionId = await createShellSession(client);
    const row = await runShell(client, sessionId, 'cat out.bin');
    expect(row.byteLength).toBe(output.length);
    expect((await readWholeOutput(client, sessionId, row, undefined, 'binary')).equals(output)).toBe(true);
    await waitUntil(() => changes > 0, 'sessions.changed reaches the channel connection');
    unsubscribe();
  }, 90_000);

  it('RLY-2 a wrong code is refused in the welcome, then the connection is closed 4401', async () => {
    const connection = link.open();
    const refused = await openRelayChannel(connection, pairing, { v: 1, pair: { code: 'WRONG-CODE0', deviceName: 'Guesser' } });
    expect(refused.welcome).toMatchObject({ ok: false, code: 'unauthorized', message: expect.stringMatching(/wrong, used or expired/) });
    const closed = await connection.waitClosed();
    expect(closed.code).toBe(4401);
    expect(closed.reason).toMatch(/wrong, used or expired/);
  });

  it('RLY-2 a device handshaking with another desktop key gets no answer but a 4401 close', async () => {
    const connection = link.open();
    const other = Buffer.from(crypto.generateKeyPairSync('x25519').publicKey.export({ format: 'jwk' }).x!, 'base64url');
    const handshake = openRelayChannel(connection, { desktop: pairing.desktop, key: other.toString('base64url') }, { v: 1 });
    expect((await connection.waitClosed()).code).toBe(4401);
    void handshake.catch(() => {});
  });

  it('RLY-2 a paired key comes back without a code and is the same device', async () => {
    const again = await openRelayChannel(link.open(), pairing, { v: 1 }, paired.deviceKeys);
    expect(again.welcome).toEqual({ ok: true, deviceId: paired.welcome.ok ? paired.welcome.deviceId : '', serverVersion: expect.any(String) });
    expect((await again.client!.call('projects.list')).projects).toHaveLength(1);
    again.client!.close();
    const unknown = link.open();
    const stranger = await openRelayChannel(unknown, pairing, { v: 1 });
    expect(stranger.welcome).toMatchObject({ ok: false, code: 'unauthorized', message: expect.stringMatching(/does not know this device/) });
    expect((await unknown.waitClosed()).code).toBe(4401);
  });

  it('RLY-2 forged and replayed frames are dropped (and ACKed), and the next call still answers', async () => {
    const socket = paired.socket!;
    const connection = socket.connection;
    const request = (id: number) => new TextEncoder().encode(JSON.stringify({ jsonrpc: '2.0', id, method: 'projects.list' }));
    const sealed = await socket.sealed(FRAME_KIND.text, request(9001));
    connection.sendData(sealed);
    connection.sendData(sealed);
    const tampered = Uint8Array.from(await socket.sealed(FRAME_KIND.text, request(9002)));
    tampered[tampered.length - 1] = tampered.at(-1)! ^ 1;
    connection.sendData(tampered);
    connection.sendData(crypto.randomBytes(64));
    expect((await paired.client!.call('projects.list')).projects).toHaveLength(1);
    const answers = (id: number) => socket.textFrames.filter((frame) => (frame as { id?: unknown }).id === id).length;
    expect(answers(9001)).toBe(1);
    expect(answers(9002)).toBe(0);
    await waitUntil(() => connection.unackedToDesktop === 0, () => `the desktop ACKs every frame, dropped ones too (${connection.unackedToDesktop} bytes left)`);
  });

  it('RLY-3 a frame over the frame limit (32 MiB, a MiB here) is answered too_large through the channel, which stays open', async () => {
    expect(FRAME_LIMIT).toBeLessThan(MAX_FRAME_BYTES);
    const socket = paired.socket!;
    const oversize = `{"jsonrpc":"2.0","id":9100,"method":"projects.list","params":{"pad":"${'x'.repeat(FRAME_LIMIT)}"}}`;
    socket.send(oversize);
    const answer = await waitUntil(() => socket.textFrames.find((frame) => (frame as { id?: unknown }).id === 9100), 'the oversize frame is answered', 60_000);
    expect(answer).toMatchObject({ error: { data: { code: 'too_large', limit: FRAME_LIMIT } } });
    expect((await paired.client!.call('projects.list')).projects).toHaveLength(1);
  }, 90_000);

  it('RLY-2 a revoked device is closed at once and refused when it comes back', async () => {
    const deviceId = paired.welcome.ok ? paired.welcome.deviceId : '';
    const connection = paired.socket!.connection;
    await admin.call('devices.revoke', { deviceId });
    const closed = await connection.waitClosed();
    expect(closed.code).toBe(4401);
    expect(closed.reason).toMatch(/revoked/);
    const back = link.open();
    const refused = await openRelayChannel(back, pairing, { v: 1 }, paired.deviceKeys);
    expect(refused.welcome).toMatchObject({ ok: false, code: 'unauthorized', message: expect.stringMatching(/revoked/) });
    expect((await back.waitClosed()).code).toBe(4401);
    // The key pairs again with a new code.
    const repaired = await openRelayChannel(link.open(), pairing, { v: 1, pair: { code: await newCode(admin), deviceName: 'Relay phone again' } }, paired.deviceKeys);
    expect(repaired.welcome).toMatchObject({ ok: true });
    expect(repaired.welcome.ok && repaired.welcome.deviceId).not.toBe(deviceId);
    paired = repaired;
  });

  it('RLY-2 a challenge for another relay is refused; a dropped link comes back with backoff and serves new connections', async () => {
    const channel = paired.socket!.connection;
    relay.challengeOverride = { publicUrl: 'http://other.localhost:1' };
    const before = relay.links.length;
    link.drop();
    expect((await channel.waitClosed()).code).toBe(4502);
    const refusedLink = await waitUntil(() => relay.links.slice(before).find((l) => l.closedWith !== null), 'the desktop comes back and refuses the other relay');
    expect(refusedLink.registerAttempts).toBe(0);
    expect(refusedLink.closedWith?.code).toBe(1008);
    relay.challengeOverride = { previewOriginTemplate: 'http://p-{id}.elsewhere.localhost:1' };
    const badOrigins = await waitUntil(() => relay.links.slice(before).find((l) => l !== refusedLink && l.closedWith !== null), 'the desktop refuses preview origins of another site');
    expect(badOrigins.registerAttempts).toBe(0);
    relay.challengeOverride = null;
    link = await relay.waitForLink(link, 60_000);
    const back = await openRelayChannel(link.open(), pairing, { v: 1 }, paired.deviceKeys);
    expect(back.welcome).toMatchObject({ ok: true });
    expect((await back.client!.call('sessions.list')).sessions).toHaveLength(1);
    expect((await admin.call('projects.list')).projects).toHaveLength(1);
  }, 90_000);
});
