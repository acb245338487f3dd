import { BuildStatusSchema, type BuildStatus, type BuildStatusRequest } from '../../protocol/buildVouchMessages';

/** How long a worker has to say which build it is; one that never answers was not built by us. */
const STATUS_WAIT_MS = 10_000;

/** Asks a service worker which build it is and how it was let in (RLY-5); null when it does not answer. */
export function workerBuildStatus(worker: ServiceWorker): Promise<BuildStatus | null> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    const timer = setTimeout(() => resolve(null), STATUS_WAIT_MS);
    channel.port1.onmessage = (event) => {
      clearTimeout(timer);
      const status = BuildStatusSchema.safeParse(event.data);
      resolve(status.success ? status.data : null);
    };
    worker.postMessage({ type: 'HBCODE_BUILD_STATUS' } satisfies BuildStatusRequest, [channel.port2]);
  });
}
