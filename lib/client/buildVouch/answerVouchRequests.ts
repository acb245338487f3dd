import { BuildRefusedSchema, VouchRequestSchema, type VouchAnswer } from '../../protocol/buildVouchMessages';
import type { RpcClient } from '../rpcClient';
import { raiseBuildWarning } from './buildWarning';

/**
 * RLY-5: this page runs the installed build's code, so it is who a new worker asks for the
 * desktop's vouch. It asks the desktop (`app.build`) over its own connection, local or through
 * the relay's encrypted channel, once it has one, and answers on the request's port. A refused
 * build is announced to every page, which warns.
 * `connected()` resolves with the open connection (waiting for one). Returns a function that stops it.
 */
export function answerVouchRequests(container: ServiceWorkerContainer, connected: () => Promise<RpcClient>): () => void {
  const onMessage = (event: MessageEvent) => {
    const refused = BuildRefusedSchema.safeParse(event.data);
    if (refused.success) {
      raiseBuildWarning({ kind: 'refused', offered: refused.data.offered, vouched: refused.data.vouched });
      return;
    }
    const port = event.ports[0];
    if (!VouchRequestSchema.safeParse(event.data).success || !port) return;
    void connected()
      .then((client) => client.call('app.build'))
      .then(
        ({ digest }) => port.postMessage({ type: 'HBCODE_VOUCH_ANSWER', digest } satisfies VouchAnswer),
        // No answer: the worker's install times out and the browser tries again on a later visit.
        (error: unknown) => console.warn('Could not ask the desktop which app build it runs', error),
      );
  };
  container.addEventListener('message', onMessage);
  return () => container.removeEventListener('message', onMessage);
}
