import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { CommandRow } from '../../../lib/protocol/rows';
import { MAX_COMMAND_OUTPUT_RANGE_BYTES, PROTOCOL_VERSION } from '../../../lib/protocol/version';
import { HandshakeSocket, OPCODE_TEXT, residentBytes, watchResidentMemory } from '../../fixtures/handshakeSocket';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { startRuntimeProcess, TEST_TOKEN, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { createShellSession, runShell } from '../../fixtures/sessionHelpers';

const MiB = 1024 * 1024;
/** How long a socket may sit over its buffer cap here; the default is longer (tests wait seconds). */
const STALL_MS = 3_000;
const READS_PER_BATCH = 25;
const BATCH_EVERY_MS = 250;
/** 1200 reads of 256 KiB: unbounded, the runtime would queue about 400 MiB for the stalled socket. */
const MAX_READS = 1_200;
const RSS_GROWTH_BOUND = 128 * MiB;

describe('SEC-9 a client that stops reading its answers', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let admin: RpcClient;
  let sessionId: string;
  let row: CommandRow;

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    runtime = await startRuntimeProcess({
      dataDir: dirs.dataDir,
      projectDirs: dirs.projectDirs,
      env: { HBCODE_SOCKET_STALL_MS: String(STALL_MS) },
    });
    admin = await runtime.connect();
    sessionId = await createShellSession(admin);
    row = await runShell(admin, sessionId, 'yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 1048576');
    expect(row.byteLength).toBe(1024 * 1024);
  });
  afterAll(async () => {
    admin?.close();
    await runtime?.stop();
    dirs?.remove();
  });

  it('SEC-9 the runtime stops reading its requests, keeps its memory bounded and closes it with 1008; other clients keep being answered', async () => {
    const slow = await HandshakeSocket.open(runtime);
    const helloId = await slow.sendRequest('auth.hello', { token: TEST_TOKEN, protocolVersion: PROTOCOL_VERSION });
    const hello = await slow.nextFrame();
    expect(hello?.opcode).toBe(OPCODE_TEXT);
    expect(JSON.parse(hello!.payload.toString('utf8'))).toMatchObject({
      id: helloId,
      result: { protocolVersion: PROTOCOL_VERSION },
    });

    const before = residentBytes(runtime.child.pid!);
    const memory = watchResidentMemory(runtime.child.pid!);
    slow.pauseReading();
    const gaveUp = () => /stopped reading/.test(runtime.output());
    let reads = 0;
    let cheapCalls = 0;
    while (reads < MAX_READS && !gaveUp() && !slow.isGone) {
      for (let i = 0; i < READS_PER_BATCH; i++, reads++) {
        slow.queueRequest('run.chatCommandOutputRead', {
          appSessionId: sessionId,
          runId: row.runId,
          commandId: row.commandId,
          generation: row.generation,
          offset: (reads % 4) * MAX_COMMAND_OUTPUT_RANGE_BYTES,
          length: MAX_COMMAND_OUTPUT_RANGE_BYTES,
          transfer: reads % 2 === 0 ? 'base64' : 'binary',
        });
      }
      // Another client's cheap call is answered while the slow one floods.
      expect((await admin.call('projects.list')).projects).toHaveLength(1);
      cheapCalls++;
      await new Promise((resolve) => setTimeout(resolve, BATCH_EVERY_MS));
    }
    const peak = memory.stop();
    console.log(
      `slow reader: RSS ${(before / MiB).toFixed(0)} MiB before, peak ${(peak / MiB).toFixed(0)} MiB after ${reads} reads sent; ${cheapCalls} cheap calls answered meanwhile`,
    );
    expect(peak - before).toBeLessThan(RSS_GROWTH_BOUND);
    expect(gaveUp(), 'the runtime logged that it gave up on the socket').toBe(true);
    expect(cheapCalls).toBeGreaterThan(0);

    // Reading again, the client finds the answers it was sent, then the close frame with the reason.
    slow.resumeReading();
    const close = await slow.closeFrame(60_000);
    expect(close).not.toBeNull();
    expect(close!.code).toBe(1008);
    expect(close!.reason).toMatch(/not reading/i);
    expect((await admin.call('projects.list')).projects).toHaveLength(1);
    slow.destroy();
  });

  it('SEC-9 shutdown does not wait for the close answer of a socket it closed for not reading (ws would wait 30 s)', async () => {
    admin.close();
    const started = Date.now();
    expect(await runtime.stop()).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
