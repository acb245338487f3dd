import { RpcError, type RpcClient } from '../rpcClient';
import type { ReadPreviewResource } from './previewBridge';

/** `files.readHtmlPreviewResource` over the app's connection, bytes in binary frames. */
export function previewResourceReader(client: () => RpcClient | null, previewId: string): ReadPreviewResource {
  return async (path, offset) => {
    const current = client();
    if (!current) throw new RpcError('closed', 'Not connected to the computer.');
    try {
      const { result, data } = await current.callBinary('files.readHtmlPreviewResource', { previewId, path, offset });
      if (result.status === 404) return { status: 404 };
      return { status: 200, header: result, data };
    } catch (error) {
      const size = error instanceof RpcError && error.code === 'invalid_params' ? error.data.size : undefined;
      if (typeof size === 'number') return { status: 'past_end', size };
      throw error;
    }
  };
}
