// Bundled into a page on the relay's origin (tests/e2e/moduleInPage.ts): a second channel to the
// desktop with the key this browser stored when it paired, to read a whole command output
// through the real relay and hash it in the page (RLY-3).
import { loadPairing } from '../../../lib/client/appDb';
import { openRelayChannel } from '../../../lib/client/relay/relayChannel';
import { RpcClient } from '../../../lib/client/rpcClient';

export interface OutputRef {
  sessionId: string;
  runId: string;
  commandId: string;
  generation: number;
  byteLength: number;
}

const PAGE_BYTES = 256 * 1024;
const IN_FLIGHT = 8;

async function channelClient(): Promise<RpcClient> {
  const pairing = await loadPairing();
  if (!pairing?.relay) throw new Error('this browser holds no relay pairing');
  const client = new RpcClient(openRelayChannel(pairing.relay, window.location));
  await client.opened;
  return client;
}

/** Every 256 KiB page of one output through the relay, eight in flight, and the SHA-256 of them in order. */
export async function readOutputDigest(ref: OutputRef): Promise<{ sha256: string; bytes: number; pages: number }> {
  const client = await channelClient();
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
        if (result.offset !== offset || data.length !== length) throw new Error(`page at ${offset}: ${data.length} bytes at ${result.offset}`);
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
