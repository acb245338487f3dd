import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { watchNewWorkers } from '../../../lib/client/install/watchNewWorkers';

// PWA-1 on the page: which workers of the registration are offered as an update, as Firefox shows
// them too: a first build may reach the page in the waiting slot, or as the active worker already.

function fakeWorker(
  state: ServiceWorkerState,
): ServiceWorker & { state: ServiceWorkerState; become(state: ServiceWorkerState): void } {
  const worker = new EventTarget() as ServiceWorker & {
    state: ServiceWorkerState;
    become(state: ServiceWorkerState): void;
  };
  Object.assign(worker, {
    state,
    become(next: ServiceWorkerState) {
      worker.state = next;
      worker.dispatchEvent(new Event('statechange'));
    },
  });
  return worker;
}

function fakeRegistration(slots: {
  installing?: ServiceWorker;
  waiting?: ServiceWorker;
  active?: ServiceWorker;
}): ServiceWorkerRegistration & { installing: ServiceWorker | null; waiting: ServiceWorker | null } {
  return Object.assign(new EventTarget(), {
    installing: null,
    waiting: null,
    active: null,
    ...slots,
  }) as unknown as ServiceWorkerRegistration & { installing: ServiceWorker | null; waiting: ServiceWorker | null };
}

describe('PWA-1 watchNewWorkers: an update is offered, a first install never', () => {
  const reload = vi.fn();
  let container: EventTarget & { controller: ServiceWorker | null };
  beforeEach(() => {
    container = Object.assign(new EventTarget(), { controller: null as ServiceWorker | null });
    vi.stubGlobal('navigator', { serviceWorker: container });
    vi.stubGlobal('window', { location: { reload } });
    reload.mockReset();
  });
  afterEach(() => vi.unstubAllGlobals());

  it('PWA-1 a first build waiting with no active worker, or already the active one, is not offered', () => {
    const offered: ServiceWorker[] = [];
    const first = fakeWorker('installed');
    const stopA = watchNewWorkers(fakeRegistration({ waiting: first }), (w) => offered.push(w));
    const active = fakeWorker('activating');
    const stopB = watchNewWorkers(fakeRegistration({ installing: active, active }), (w) => offered.push(w));
    expect(offered).toEqual([]);
    stopA();
    stopB();
  });

  it('PWA-1 a build waiting behind an active one is offered once, whether it was waiting already or installs later', () => {
    const offered: ServiceWorker[] = [];
    const older = fakeWorker('activated');
    const waiting = fakeWorker('installed');
    const registration = fakeRegistration({ waiting, active: older });
    const stop = watchNewWorkers(registration, (w) => offered.push(w));
    expect(offered).toEqual([waiting]);

    const next = fakeWorker('installing');
    registration.installing = next;
    registration.dispatchEvent(new Event('updatefound'));
    registration.installing = null;
    registration.waiting = next;
    next.become('installed');
    next.become('installed');
    expect(offered).toEqual([waiting, next]);
    stop();
  });

  it('PWA-1 the page reloads when a new worker takes over from its controller, not when a first one claims it', () => {
    const stopFirst = watchNewWorkers(fakeRegistration({}), () => undefined);
    container.controller = fakeWorker('activated');
    container.dispatchEvent(new Event('controllerchange'));
    expect(reload).not.toHaveBeenCalled();
    stopFirst();

    const stop = watchNewWorkers(fakeRegistration({ active: container.controller }), () => undefined);
    container.controller = fakeWorker('activated');
    container.dispatchEvent(new Event('controllerchange'));
    expect(reload).toHaveBeenCalledTimes(1);
    stop();
  });
});
