import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { decodeBinaryFrame } from '../../../lib/protocol/binaryFrame';
import { CHANNEL_WINDOW_BYTES, type RelayPairingLink } from '../../../lib/relay/relayWire';
import type { FakeDesktopLink } from '../../fixtures/fakeRelayNode';
import { residentBytes, watchResidentMemory } from '../../fixtures/handshakeSocket';
import { openRelayChannel, startLinkedRuntime, type LinkedRuntime } from '../../fixtures/relayDevice';
import type { RuntimeProcess } from '../../fixtures/runtimeProcess';
import { expectRpcError } from '../../fixtures/rpcErrors';
import { waitUntil } from '../../fixtures/waitUntil';

const MiB = 1024 * 1024;
const GUESSES = 3;
/** Long enough that three refused handshakes on a busy machine fall in one window. */
const GUESS_WINDOW_MS = 15_000;
const STALL_MS = 4_000;
const SOFT_BUFFERED_BYTES = 8 * MiB;
const READS_PER_BATCH = 20;
/** 600 reads of 1 MiB: unbounded, the runtime would queue 600 MiB for the device that does not read. */
const MAX_READS = 600;
const RSS_GROWTH_BOUND = 160 * MiB;

describe('RLY-2 RLY-4 SEC-9 the relay channels under the runtime limits', () => {
  let linked: LinkedRuntime;
  let runtime: RuntimeProcess;
  let admin: RpcClient;
  let link: FakeDesktopLink;
  let pairing: RelayPairingLink;

  beforeAll(async () => {
    linked = await startLinkedRuntime({ HBCODE_PAIRING_GUESS_LIMIT: String(GUESSES), HBCODE_PAIRING_GUESS_WINDOW_MS: String(GUESS_WINDOW_MS), HBCODE_SOCKET_STALL_MS: String(STALL_MS) });
    ({ runtime, admin, link, pairing } = linked);
  }, 60_000);
  afterAll(() => linked?.stop());

  it('RLY-2 SEC-9 wrong codes through the relay count against the one guess limit: then even the right code waits, on either path', async () => {
    for (let i = 0; i < GUESSES; i++) {
      const connection = link.open();
      const refused = await openRelayChannel(connection, pairing, { v: 1, pair: { code: `WRONG-${i}0000`, deviceName: 'Guesser' } });
      expect(refused.welcome).toMatchObject({ ok: false, code: 'unauthorized' });
      expect((await connection.waitClosed()).code).toBe(4401);
    }
    const limited = link.open();
    const refused = await openRelayChannel(limited, pairing, { v: 1, pair: { code: pairing.code, deviceName: 'Phone' } });
    expect(refused.welcome).toMatchObject({ ok: false, code: 'rate_limited', retryAfterMs: expect.any(Number), message: expect.stringMatching(/Too many pairing attempts/) });
    expect(refused.welcome.ok === false && refused.welcome.retryAfterMs).toBeGreaterThan(0);
    expect((await limited.waitClosed()).code).toBe(4401);
    const local = runtime.openSocket();
    await local.opened;
    await expectRpcError(local.call('pair.redeem', { code: pairing.code, deviceName: 'Local' }), 'rate_limited');
    local.close();

    // The right code was never evaluated, so it still works once the window has passed.
    const paired = await waitUntil(
      async () => {
        const attempt = await openRelayChannel(link.open(), pairing, { v: 1, pair: { code: pairing.code, deviceName: 'Phone' } });
        return attempt.welcome.ok ? attempt : null;
      },
      'the right code pairs once the guess window has passed',
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect((await paired.client!.call('projects.list')).projects).toHaveLength(1);
    paired.client!.close();
  }, 90_000);

  it('RLY-4 SEC-9 a device whose relay stops ACKing: the window holds, the runtime stops reading its requests, memory stays bounded, then 1008', async () => {
    const bytes = crypto.randomBytes(4 * MiB);
    fs.writeFileSync(path.join(runtime.projectDir, 'big.bin'), bytes);
    const channel = await openRelayChannel(link.open(), pairing, { v: 1, pair: { code: (await admin.call('pair.create')).code, deviceName: 'Slow phone' } });
    const socket = channel.socket!;
    const connection = socket.connection;
    let exactAnswers = 0;
    let wrongAnswers = 0;
    socket.addEventListener('message', (event) => {
      if (!(event.data instanceof Uint8Array)) return;
      const frame = decodeBinaryFrame(event.data);
      const offset = (((frame.header as { id: number }).id - 20_000) % 4) * MiB;
      if (Buffer.from(frame.data).equals(bytes.subarray(offset, offset + MiB))) exactAnswers++;
      else wrongAnswers++;
    });
    const seen = new Set<number>();
    const before = residentBytes(runtime.child.pid!);
    const memory = watchResidentMemory(runtime.child.pid!);
    connection.holdAcks = true;
    const gaveUp = () => /closing a socket that stopped reading its answers queuedBytes=(\d+)/.exec(runtime.output());
    let reads = 0;
    while (reads < MAX_READS && !gaveUp()) {
      for (let i = 0; i < READS_PER_BATCH; i++, reads++) {
        const id = 20_000 + reads;
        seen.add(id);
        socket.send(
          JSON.stringify({
            jsonrpc: '2.0',
            id,
            method: 'files.readBinary',
            params: { projectDirectory: runtime.projectDir, path: 'big.bin', offset: (reads % 4) * MiB, length: MiB, transfer: 'binary' },
          }),
        );
      }
      // The local app is answered meanwhile.
      expect((await admin.call('projects.list')).projects).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const peak = memory.stop();
    const stalled = await waitUntil(gaveUp, 'the runtime gives up on the device that does not read', 60_000);
    console.log(`relay slow reader: ${reads} reads sent, queued ${(Number(stalled[1]) / MiB).toFixed(1)} MiB at the stall, relay held ${(connection.maxUnackedFromDesktop / MiB).toFixed(1)} MiB un-ACKed at most, RSS +${((peak - before) / MiB).toFixed(0)} MiB`);
    expect(Number(stalled[1])).toBeGreaterThan(SOFT_BUFFERED_BYTES);
    expect(connection.maxUnackedFromDesktop).toBeLessThanOrEqual(CHANNEL_WINDOW_BYTES);
    // Paused, the runtime stopped ACKing the device's requests: the relay would stop reading the device.
    expect(connection.unackedToDesktop).toBeGreaterThan(0);
    expect(peak - before).toBeLessThan(RSS_GROWTH_BOUND);

    // ACKing again, the device gets the answers queued for it, byte-exact, then the close.
    connection.releaseAcks();
    const closed = await connection.waitClosed(60_000);
    expect(closed.code).toBe(1008);
    expect(closed.reason).toMatch(/not reading/);
    expect(exactAnswers * MiB).toBeGreaterThanOrEqual(SOFT_BUFFERED_BYTES);
    expect(exactAnswers).toBeLessThan(seen.size);
    expect(wrongAnswers).toBe(0);
  }, 120_000);
});
