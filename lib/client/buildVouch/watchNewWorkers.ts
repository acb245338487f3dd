import { raiseBuildWarning } from './buildWarning';
import { workerBuildStatus } from './workerBuildStatus';

/**
 * Whether the desktop vouched for this worker's build (RLY-5); warns loudly when not. `firstInstall`:
 * no build was installed before it, so trust on first use is all it can have (checkInstalledBuild
 * then compares it with the desktop's).
 */
export async function vouchedByDesktop(worker: ServiceWorker, firstInstall = false): Promise<boolean> {
  const status = await workerBuildStatus(worker);
  if (status?.vouched === 'desktop') return true;
  if (firstInstall && status?.vouched === 'firstInstall') return false;
  raiseBuildWarning({ kind: 'unvouched', offered: status?.digest ?? null });
  return false;
}

/**
 * RLY-5: follows every new worker of the registration, not just the first (a refused build is
 * followed by a vouched one in the same page). A worker that reaches `installed` (waiting, or
 * taking over by itself) must say the desktop vouched for it: `onVouchedWaiting` offers it; any
 * other is warned about. A change of controller reloads the page only into a vouched build.
 * Returns a function that stops it.
 */
export function watchNewWorkers(registration: ServiceWorkerRegistration, onVouchedWaiting: (worker: ServiceWorker) => void): () => void {
  const checked = new WeakSet<ServiceWorker>();
  const check = (worker: ServiceWorker, firstInstall: boolean) => {
    if (checked.has(worker)) return;
    checked.add(worker);
    void vouchedByDesktop(worker, firstInstall).then((vouched) => vouched && registration.waiting === worker && onVouchedWaiting(worker));
  };
  /**
   * No other build was installed: no active worker, or the active one is this very worker. NOTE:
   * Firefox shows a first install in the waiting slot, or already as active, by the time the
   * registration reaches the page; reading "an active worker exists" then called the first build
   * unvouched and raised a false warning right after pairing.
   */
  const isFirstInstall = (worker: ServiceWorker) => !registration.active || registration.active === worker;
  const follow = (worker: ServiceWorker | null) => {
    if (!worker) return;
    const firstInstall = isFirstInstall(worker);
    const settled = () => {
      if (worker.state === 'installed' || worker.state === 'activating' || worker.state === 'activated') check(worker, firstInstall);
    };
    worker.addEventListener('statechange', settled);
    settled();
  };
  const onUpdateFound = () => follow(registration.installing);
  const onControllerChange = () => {
    const controller = navigator.serviceWorker.controller;
    if (controller) void vouchedByDesktop(controller).then((vouched) => vouched && window.location.reload());
  };
  registration.addEventListener('updatefound', onUpdateFound);
  navigator.serviceWorker.addEventListener('controllerchange', onControllerChange);
  follow(registration.installing);
  if (registration.waiting) check(registration.waiting, isFirstInstall(registration.waiting));
  return () => {
    registration.removeEventListener('updatefound', onUpdateFound);
    navigator.serviceWorker.removeEventListener('controllerchange', onControllerChange);
  };
}
