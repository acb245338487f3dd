import type { CommandRow } from '../../protocol/rows';
import { readCachedOutputPage, saveOutputPage } from './outputCache';
import { isFinalOutputPage, outputSource } from './outputCachePolicy';
import { RpcError, type RpcClient } from '../rpcClient';

export interface OutputPageRequest {
  sessionId: string;
  row: CommandRow;
  generation: number;
  offset: number;
  /** 1..256 KiB (OUT-5) */
  length: number;
  /** false: a glance (a card's last lines) that must not store a second copy of bytes the viewer's pages keep (PWA-3). */
  save?: boolean;
}

export interface OutputPage {
  bytes: Uint8Array;
  availableBytes: number;
  complete: boolean;
  /** Read from what this device saved, not from the runtime. */
  fromCache: boolean;
}

/**
 * One page of output (PWA-3): from the runtime while connected, saving final pages on the way;
 * from this device's cache while not (or when the connection drops mid-read). Null when the page
 * was never saved here and the runtime cannot be asked. Runtime errors other than a closed
 * connection (a replaced generation is `conflict`) reach the caller.
 */
export async function readOutputPage(client: RpcClient | null, request: OutputPageRequest): Promise<OutputPage | null> {
  const { sessionId, row, generation, offset, length, save = true } = request;
  const source = outputSource(sessionId, row.runId, row.commandId);
  if (client) {
    try {
      const { result, data } = await client.callBinary('run.chatCommandOutputRead', {
        appSessionId: sessionId,
        runId: row.runId,
        commandId: row.commandId,
        generation,
        offset,
        length,
      });
      if (
        save &&
        isFinalOutputPage({
          offset,
          byteCount: result.byteCount,
          availableBytes: result.availableBytes,
          complete: result.complete,
        })
      ) {
        // NOTE: saving is best effort; a full disk must not stop the viewer.
        saveOutputPage({ source, generation: result.generation, offset }, data).catch((error: unknown) =>
          console.warn('Could not save an output page on this device', error),
        );
      }
      return { bytes: data, availableBytes: result.availableBytes, complete: result.complete, fromCache: false };
    } catch (error) {
      if (!(error instanceof RpcError && error.code === 'closed')) throw error;
    }
  }
  const bytes = await readCachedOutputPage({ source, generation, offset }, length);
  return bytes ? { bytes, availableBytes: row.byteLength, complete: row.complete, fromCache: true } : null;
}
