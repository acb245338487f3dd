import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCli } from '../../../server/cli';
import { silentLogger } from '../../../server/runtime/log';
import { startRuntime, startupBanner, type RunningRuntime } from '../../../server/startRuntime';
import { startFakeRelayNode, type FakeRelayNode } from '../../fixtures/fakeRelayNode';
import { openRelayChannel, relayLinkInBanner } from '../../fixtures/relayDevice';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { waitUntil } from '../../fixtures/waitUntil';

describe('RLY-2 the relay link state a running runtime exposes', () => {
  let relay: FakeRelayNode;
  let dirs: RuntimeDirs;
  let running: RunningRuntime;

  beforeAll(async () => {
    relay = await startFakeRelayNode();
    dirs = makeRuntimeDirs();
    running = await startRuntime(parseCli(['--port', '0', '--data-dir', dirs.dataDir, '--relay', relay.publicUrl, ...dirs.projectDirs], {}), silentLogger);
  }, 60_000);
  afterAll(async () => {
    await running?.stop();
    await relay?.close();
    dirs?.remove();
  });

  it('RLY-2 linked, onLinked on each registration, dropped frames counted, channels detached when the link drops', async () => {
    const state = running.relay!;
    expect(state.desktopId).toMatch(/^[a-z2-7]{32}$/);
    await waitUntil(() => state.linked, 'the runtime links to the relay');
    let linkedAgain = 0;
    const unsubscribe = state.onLinked(() => linkedAgain++);
    const link = await relay.waitForLink();
    const pairing = relayLinkInBanner(await startupBanner(running));
    expect(pairing.key).toBe(Buffer.from(state.noisePublicKey).toString('base64url'));

    const channel = await openRelayChannel(link.open(), pairing, { v: 1, pair: { code: pairing.code, deviceName: 'Phone' } });
    expect(channel.welcome.ok).toBe(true);
    expect((await channel.client!.call('projects.list')).projects).toHaveLength(1);
    expect(state.buffers.channels).toHaveLength(1);
    const droppedBefore = state.droppedFrames;
    channel.socket!.connection.sendData(crypto.randomBytes(100));
    await waitUntil(() => state.droppedFrames === droppedBefore + 1, 'the forged frame is counted');
    expect((await channel.client!.call('projects.list')).projects).toHaveLength(1);

    link.drop();
    await waitUntil(() => !state.linked || linkedAgain > 0, 'the runtime sees the link drop');
    await waitUntil(() => linkedAgain === 1 && state.linked, 'the runtime links again', 60_000);
    expect(state.buffers.channels).toHaveLength(0);
    expect(running.runtime.auth.devices(null).map((d) => d.name)).toEqual(['Phone']);
    unsubscribe();
  }, 90_000);
});
