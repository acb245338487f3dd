import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { MAX_ATTACHMENT_BYTES } from '../../../lib/protocol/attachments';
import { pairDevice, type PairedDevice } from '../../fixtures/pairedDevice';
import { expectRpcError } from '../../fixtures/rpcErrors';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { createShellSession } from '../../fixtures/sessionHelpers';
import { mountSmallDisk, type SmallDisk } from '../../fixtures/smallDisk';

const MIB = 1024 * 1024;
const declared = (sessionId: string, index: number, byteLength: number) => ({
  sessionId,
  name: `big-${index}.bin`,
  mimeType: 'application/octet-stream',
  byteLength,
  sha256: crypto.createHash('sha256').update(`file ${index}`).digest('hex'),
});

describe('ATT-3 attachment quotas over a real WebSocket', () => {
  let runtime: RuntimeProcess;
  let admin: RpcClient;
  let phone: PairedDevice;
  let laptop: PairedDevice;

  beforeAll(async () => {
    runtime = await startRuntimeProcess();
    admin = await runtime.connect();
    phone = await pairDevice(runtime, admin, 'Phone');
    laptop = await pairDevice(runtime, admin, 'Laptop');
  });
  afterAll(async () => {
    for (const client of [phone?.client, laptop?.client, admin]) client?.close();
    await runtime?.stop();
  });

  it('ATT-3 300 begins of 2 GiB each: only what fits the device quota (8 GiB) and the free disk is promised; every other one is refused with the numbers', async () => {
    const sessionId = await createShellSession(admin);
    let accepted = 0;
    const refusals = new Map<string, number>();
    for (let i = 0; i < 300; i++) {
      try {
        await phone.client.call('attachments.begin', declared(sessionId, i, MAX_ATTACHMENT_BYTES));
        accepted++;
      } catch (error) {
        const refused = await expectRpcError(Promise.reject(error), 'storage');
        const reason = String((refused.data as { reason?: unknown }).reason);
        refusals.set(reason, (refusals.get(reason) ?? 0) + 1);
        expect(refused.message).toMatch(
          /^(Not enough space on the desktop: [\d,]+ bytes free, 2,147,483,648 bytes asked\.|This device's attachments would pass their quota: [\d,]+ bytes kept of 8,589,934,592 bytes, 2,147,483,648 bytes asked\.)/,
        );
      }
    }
    expect(accepted).toBeLessThanOrEqual(4);
    expect(accepted + [...refusals.values()].reduce((a, b) => a + b, 0)).toBe(300);
    expect([...refusals.keys()].every((reason) => reason === 'device_quota' || reason === 'disk_space')).toBe(true);
    // Another device has a quota of its own, still bounded by the disk.
    const other = await laptop.client.call('attachments.begin', declared(sessionId, 1000, MIB)).then(
      () => 'accepted',
      (error: { data?: { reason?: string } }) => error.data?.reason,
    );
    expect(['accepted', 'disk_space']).toContain(other);
  });
});

describe('ATT-3 on a small desktop disk', () => {
  let disk: SmallDisk;
  let runtime: RuntimeProcess;
  let client: RpcClient;

  beforeAll(async () => {
    disk = mountSmallDisk(96);
    runtime = await startRuntimeProcess({
      dataDir: disk.dir,
      env: { HBCODE_ATTACHMENT_DISK_HEADROOM_BYTES: String(32 * MIB) },
    });
    client = await runtime.connect();
  });
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    disk?.unmount();
  });

  it('ATT-3 a file bigger than the free disk less the headroom is refused with code storage and "not enough space on the desktop"', async () => {
    const sessionId = await createShellSession(client);
    const refused = await expectRpcError(client.call('attachments.begin', declared(sessionId, 1, 80 * MIB)), 'storage');
    expect(refused.data).toMatchObject({ reason: 'disk_space', askedBytes: 80 * MIB, headroomBytes: 32 * MIB });
    const free = (refused.data as { freeBytes: number }).freeBytes;
    expect(free).toBeLessThan(64 * MIB);
    expect(refused.message).toBe(
      `Not enough space on the desktop: ${free.toLocaleString('en-US')} bytes free, ${(80 * MIB).toLocaleString('en-US')} bytes asked.`,
    );
    expect(await client.call('attachments.begin', declared(sessionId, 2, 16 * MIB))).toMatchObject({
      complete: false,
      confirmedOffset: 0,
    });
  });
});
