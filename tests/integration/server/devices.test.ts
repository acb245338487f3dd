import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { PROTOCOL_VERSION } from '../../../lib/protocol/version';
import { pairDevice } from '../../fixtures/pairedDevice';
import { decodeTerminalQr } from '../../fixtures/qrDecode';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { expectRpcError } from '../../fixtures/rpcErrors';

describe('DEV-1 pairing and devices over the protocol', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let admin: RpcClient;

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });
    admin = await runtime.connect();
  }, 60_000);
  afterAll(async () => {
    admin?.close();
    await runtime?.stop();
    dirs?.remove();
  });

  const hello = async (token: string) => {
    const socket = runtime.openSocket();
    await socket.opened;
    return socket.call('auth.hello', { token, protocolVersion: PROTOCOL_VERSION });
  };

  it('DEV-1 start-up prints a QR code of the pairing link it prints', () => {
    const lines = runtime.output().split('\n');
    const link = /Pair a device \(code [0-9A-Z-]+, valid once for \d+ minutes\): (\S+)/.exec(runtime.output())?.[1];
    const start = lines.findIndex((line) => line.includes('scan this'));
    const end = lines.findIndex((line, i) => i > start && line.trim() === '');
    expect(start).toBeGreaterThan(0);
    expect(decodeTerminalQr(lines.slice(start + 1, end))).toBe(link);
  });

  it('DEV-1 a paired device can make a new single-use code and link, and a device can be renamed', async () => {
    const phone = await pairDevice(runtime, admin, 'Phone');
    const created = await phone.client.call('pair.create');
    expect(created.url).toBe(`${runtime.appOrigin}/pair#code=${encodeURIComponent(created.code)}`);
    expect(created.expiresAt).toBeGreaterThan(Date.now());
    await phone.client.call('devices.rename', { deviceId: phone.deviceId, name: '  Work phone ' });
    const { devices } = await phone.client.call('devices.list');
    expect(devices.find((d) => d.id === phone.deviceId)).toMatchObject({
      name: 'Work phone',
      current: true,
      lastSeenAt: expect.any(Number),
    });
    await expectRpcError(phone.client.call('devices.rename', { deviceId: 'no-such-device', name: 'x' }), 'not_found');
    phone.client.close();
  });

  it('DEV-1 a revoked token is told it was revoked; a token the runtime never issued is told so', async () => {
    const tablet = await pairDevice(runtime, admin, 'Tablet');
    await tablet.client.call('devices.revoke', { deviceId: tablet.deviceId });
    expect(await tablet.client.closed).toMatchObject({
      code: 4401,
      reason: expect.stringMatching(/signed out or removed/),
    });
    expect((await expectRpcError(hello(tablet.token), 'unauthorized')).message).toMatch(
      /revoked: it was signed out or removed/,
    );
    expect((await expectRpcError(hello(crypto.randomBytes(32).toString('base64url')), 'unauthorized')).message).toMatch(
      /does not know this device/,
    );
  });
});
