import { RpcError, type RpcClient } from './rpcClient';

/** The socket closed before it opened; its close code says why (4401 refused, 4404 desktop offline, …). */
export class ClosedBeforeOpenError extends RpcError {
  constructor(
    readonly closeCode: number,
    readonly closeReason: string,
  ) {
    super('closed', closeReason || `The connection closed (${closeCode}).`, { closeCode });
  }
}

/**
 * Resolves once the client's socket is open. A socket that closes first (a relay channel whose
 * handshake was refused, or a node that closed it) rejects with its close code, where `opened`
 * alone would wait forever.
 */
export function untilOpen(client: RpcClient): Promise<void> {
  return Promise.race([
    client.opened,
    client.closed.then(({ code, reason }) => {
      throw new ClosedBeforeOpenError(code, reason);
    }),
  ]);
}
