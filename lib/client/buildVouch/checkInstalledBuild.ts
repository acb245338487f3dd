import type { RpcClient } from '../rpcClient';
import { raiseBuildWarning } from './buildWarning';
import { workerBuildStatus } from './workerBuildStatus';

/** How long a first visit waits for its worker to install before it compares builds. */
const READY_WAIT_MS = 30_000;

function readyWorker(container: ServiceWorkerContainer): Promise<ServiceWorker | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), READY_WAIT_MS);
    void container.ready.then((registration) => {
      clearTimeout(timer);
      resolve(registration.active);
    });
  });
}

/**
 * RLY-5, once connected: compares the build this page runs with the desktop's (`app.build`).
 * A page no worker controls came from whatever served it (the first visit, trusted on first use):
 * its worker's build must be the desktop's, else it warns. A controlled page whose build is older
 * than the desktop's asks for the update, which installs only once the desktop vouches for it.
 */
export async function checkInstalledBuild(client: RpcClient, container: ServiceWorkerContainer): Promise<void> {
  const { digest: vouched } = await client.call('app.build');
  const controller = container.controller;
  const worker = controller ?? (await readyWorker(container));
  if (!worker) return;
  const status = await workerBuildStatus(worker);
  if (!status) {
    raiseBuildWarning({ kind: 'unvouched', offered: null });
    return;
  }
  if (status.digest === vouched) return;
  if (controller) await (await container.getRegistration())?.update();
  else raiseBuildWarning({ kind: 'differs', installed: status.digest, vouched });
}
