import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCli } from '../../../server/cli';
import { loadOrCreateRelayIdentity } from '../../../server/relayLink/relayIdentity';
import { relayNamesFor } from '../../../server/relayLink/relayNameServer';
import { silentLogger } from '../../../server/runtime/log';
import { startRuntime, startupBanner, type RunningRuntime } from '../../../server/startRuntime';
import { startFakeRelayNode, type FakeRelayNode } from '../../fixtures/fakeRelayNode';
import { makeTestCertificates, type TestCertificates } from '../../fixtures/relay/testCertificates';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { waitUntil } from '../../fixtures/waitUntil';

const TLS_PORT = 8443;

describe('RLY-1 RLY-2 the relay link state a running runtime exposes', () => {
  let relay: FakeRelayNode;
  let dirs: RuntimeDirs;
  let certs: TestCertificates;
  let running: RunningRuntime;
  let desktopId: string;

  beforeAll(async () => {
    relay = await startFakeRelayNode();
    dirs = makeRuntimeDirs();
    desktopId = (await loadOrCreateRelayIdentity(dirs.dataDir)).desktopId;
    certs = makeTestCertificates(relayNamesFor(new URL(relay.publicUrl), desktopId, TLS_PORT).serverNames);
    const args = [
      '--port',
      '0',
      '--data-dir',
      dirs.dataDir,
      '--relay',
      relay.publicUrl,
      '--relay-cert',
      certs.certFile,
      '--relay-key',
      certs.keyFile,
      '--relay-tls-port',
      String(TLS_PORT),
    ];
    running = await startRuntime(parseCli([...args, ...dirs.projectDirs], {}), silentLogger);
  }, 60_000);
  afterAll(async () => {
    await running?.stop();
    await relay?.close();
    dirs?.remove();
    certs?.remove();
  });

  it('RLY-2 the banner pairs on the desktop’s own relay name; a relay without a certificate is refused at the command line', async () => {
    const state = running.relay!;
    expect(state.desktopId).toBe(desktopId);
    expect(state.passthroughOrigin).toBe(`https://${desktopId}.relay.localhost:${TLS_PORT}`);
    const banner = await startupBanner(running);
    const link = /Pair a device through the relay \(same code\): (\S+)/.exec(banner)?.[1];
    expect(link).toMatch(new RegExp(`^https://${desktopId}\\.relay\\.localhost:${TLS_PORT}/pair#code=[^&]+$`));
    expect(() => parseCli(['--relay', relay.publicUrl, ...dirs.projectDirs], {})).toThrow(
      /--relay needs a certificate/,
    );
  });

  it('RLY-1 linked, onLinked on each registration, dropped frames counted, streams ended when the link drops', async () => {
    const state = running.relay!;
    await waitUntil(() => state.linked, 'the runtime links to the relay');
    let linkedAgain = 0;
    const unsubscribe = state.onLinked(() => linkedAgain++);
    const link = await relay.waitForLink();

    link.stream();
    await waitUntil(() => state.buffers.streams === 1, 'the desktop takes the stream');
    const droppedBefore = state.droppedFrames;
    // DATA for a connection the desktop never saw a STREAM for.
    link.send({ type: 2, connectionId: 'fake.99', payload: crypto.randomBytes(100) });
    await waitUntil(() => state.droppedFrames === droppedBefore + 1, 'the stray frame is counted');

    link.drop();
    await waitUntil(() => !state.linked || linkedAgain > 0, 'the runtime sees the link drop');
    expect(state.buffers.streams).toBe(0);
    await waitUntil(() => linkedAgain === 1 && state.linked, 'the runtime links again', 60_000);
    unsubscribe();
  }, 90_000);
});
