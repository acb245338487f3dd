// Runs in a benchmark page: one authenticated protocol client to the runtime that served the page.
import { RpcClient, type WebSocketLike } from '../../lib/client/rpcClient';
import { PROTOCOL_VERSION } from '../../lib/protocol/version';

let client: RpcClient | null = null;

/** The page's client, connected and signed in once with the scripts' token. */
export async function connected(token: string): Promise<RpcClient> {
  if (client) return client;
  const socket = new WebSocket(`${location.origin.replace(/^http/, 'ws')}/rpc`);
  socket.binaryType = 'arraybuffer';
  const rpc = new RpcClient(socket as unknown as WebSocketLike);
  await rpc.opened;
  await rpc.call('auth.hello', { token, protocolVersion: PROTOCOL_VERSION });
  // As the app's connection does: chunk bytes over HTTP on the same origin (FILE-2, ATT-1).
  rpc.httpBytes = { origin: location.origin, token };
  return (client = rpc);
}
