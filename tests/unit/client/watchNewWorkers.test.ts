import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BuildStatus } from '../../../lib/protocol/buildVouchMessages';

// RLY-5 on the page: which workers of the registration count as the first install (trusted on
// first use) as Firefox shows them: a first build may reach the page in the waiting slot, or as
// the active worker already, by the time the registration does.

const DIGEST = 'a'.repeat(64);

/** A service worker that says it is `vouched` when asked which build it is. */
function fakeWorker(state: ServiceWorkerState, vouched: BuildStatus['vouched']): ServiceWorker {
  const worker = new EventTarget() as ServiceWorker & { state: ServiceWorkerState };
  Object.assign(worker, {
    state,
    postMessage: (_message: unknown, transfer: MessagePort[]) => {
      const answer: BuildStatus = { type: 'HBCODE_BUILD_STATUS_ANSWER', digest: DIGEST, vouched };
      transfer[0]!.postMessage(answer);
    },
  });
  return worker;
}

function fakeRegistration(slots: { installing?: ServiceWorker; waiting?: ServiceWorker; active?: ServiceWorker }): ServiceWorkerRegistration {
  return Object.assign(new EventTarget(), { installing: null, waiting: null, active: null, ...slots }) as unknown as ServiceWorkerRegistration;
}

/** Fresh modules per test: the page's warning is module state that stays until a reload. */
async function load() {
  vi.resetModules();
  const { watchNewWorkers } = await import('../../../lib/client/buildVouch/watchNewWorkers');
  const { currentBuildWarning } = await import('../../../lib/client/buildVouch/buildWarning');
  return { watchNewWorkers, currentBuildWarning };
}

/** Every status question asked so far has been answered and handled. */
async function settle(worker: ServiceWorker): Promise<void> {
  // One more round trip through a port comes after the ones asked before it.
  await new Promise<void>((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    worker.postMessage({ type: 'HBCODE_BUILD_STATUS' }, [channel.port2]);
  });
  await new Promise((resolve) => setTimeout(resolve, 0));
}

describe('RLY-5 watchNewWorkers: the first install as Firefox shows it', () => {
  beforeEach(() => {
    vi.stubGlobal('navigator', { serviceWorker: Object.assign(new EventTarget(), { controller: null }) });
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('RLY-5 a first build waiting with no active worker is trusted on first use, with no warning', async () => {
    const { watchNewWorkers, currentBuildWarning } = await load();
    const worker = fakeWorker('installed', 'firstInstall');
    const offered: ServiceWorker[] = [];
    const stop = watchNewWorkers(fakeRegistration({ waiting: worker }), (w) => offered.push(w));
    await settle(worker);
    expect(currentBuildWarning()).toBeNull();
    expect(offered).toEqual([]);
    stop();
  });

  it('RLY-5 a first build still named installing while already the active worker raises no warning', async () => {
    const { watchNewWorkers, currentBuildWarning } = await load();
    const worker = fakeWorker('activating', 'firstInstall');
    const stop = watchNewWorkers(fakeRegistration({ installing: worker, active: worker }), () => undefined);
    await settle(worker);
    expect(currentBuildWarning()).toBeNull();
    stop();
  });

  it('RLY-5 a build waiting beside another active build that claims a first install is warned about', async () => {
    const { watchNewWorkers, currentBuildWarning } = await load();
    const older = fakeWorker('activated', 'desktop');
    const worker = fakeWorker('installed', 'firstInstall');
    const stop = watchNewWorkers(fakeRegistration({ waiting: worker, active: older }), () => undefined);
    await settle(worker);
    expect(currentBuildWarning()).toEqual({ kind: 'unvouched', offered: DIGEST });
    stop();
  });
});
