/**
 * PWA-1: follows every new worker of the registration, not just the first. A worker that waits
 * behind an installed one is offered (`onWaiting`); the user decides when it takes over
 * (SKIP_WAITING), and the page reloads into it only when it replaced a controller it had. A first
 * install has nothing to wait behind and is never offered. Returns a function that stops it.
 */
export function watchNewWorkers(
  registration: ServiceWorkerRegistration,
  onWaiting: (worker: ServiceWorker) => void,
): () => void {
  const offered = new WeakSet<ServiceWorker>();
  const offer = (worker: ServiceWorker) => {
    // NOTE: Firefox shows a first install in the waiting slot, or already as active, by the time
    // the registration reaches the page: only a worker behind another active one is an update.
    if (
      offered.has(worker) ||
      !registration.active ||
      registration.active === worker ||
      registration.waiting !== worker
    )
      return;
    offered.add(worker);
    onWaiting(worker);
  };
  const follow = (worker: ServiceWorker | null) => {
    if (!worker) return;
    const settled = () => {
      if (worker.state === 'installed') offer(worker);
    };
    worker.addEventListener('statechange', settled);
    settled();
  };
  const hadController = navigator.serviceWorker.controller !== null;
  const onUpdateFound = () => follow(registration.installing);
  const onControllerChange = () => {
    if (hadController) window.location.reload();
  };
  registration.addEventListener('updatefound', onUpdateFound);
  navigator.serviceWorker.addEventListener('controllerchange', onControllerChange);
  follow(registration.installing);
  if (registration.waiting) offer(registration.waiting);
  return () => {
    registration.removeEventListener('updatefound', onUpdateFound);
    navigator.serviceWorker.removeEventListener('controllerchange', onControllerChange);
  };
}
