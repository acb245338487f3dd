// Bundled into the app's page on the desktop's relay name (tests/e2e/moduleInPage.ts): a second
// socket to `/rpc` on the page's own origin, through the relay's TLS passthrough (RLY-6), with the
// token this browser stored when it paired, to read a whole command output page by page and hash
// it in the page (RLY-3).
import { loadPairing } from '../../../lib/client/appDb';
import { RpcClient, type WebSocketLike } from '../../../lib/client/rpcClient';
import { PROTOCOL_VERSION } from '../../../lib/protocol/version';

export interface OutputRef {
  sessionId: string;
  runId: string;
  commandId: string;
  generation: number;
  byteLength: number;
}

const PAGE_BYTES = 256 * 1024;
const IN_FLIGHT = 8;

async function pageClient(): Promise<RpcClient> {
  const pairing = await loadPairing();
  if (!pairing?.token) throw new Error('this browser holds no pairing');
  const socket = new WebSocket(`wss://${window.location.host}/rpc`);
  socket.binaryType = 'arraybuffer';
  const client = new RpcClient(socket as unknown as WebSocketLike);
  await client.opened;
  await client.call('auth.hello', { token: pairing.token, protocolVersion: PROTOCOL_VERSION });
  return client;
}

/** Every 256 KiB page of one output, eight in flight, and the SHA-256 of them in order. */
export async function readOutputDigest(ref: OutputRef): Promise<{ sha256: string; bytes: number; pages: number }> {
  const client = await pageClient();
  try {
    const whole = new Uint8Array(ref.byteLength);
    let next = 0;
    let pages = 0;
    const worker = async () => {
      while (next < ref.byteLength) {
        const offset = next;
        next += PAGE_BYTES;
        const length = Math.min(PAGE_BYTES, ref.byteLength - offset);
        const { result, data } = await client.callBinary('run.chatCommandOutputRead', {
          appSessionId: ref.sessionId,
          runId: ref.runId,
          commandId: ref.commandId,
          generation: ref.generation,
          offset,
          length,
        });
        if (result.offset !== offset || data.length !== length)
          throw new Error(`page at ${offset}: ${data.length} bytes at ${result.offset}`);
        whole.set(data, offset);
        pages++;
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', whole));
    return { sha256: Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join(''), bytes: whole.length, pages };
  } finally {
    client.close();
  }
}
