import { readProjectFileChunks } from '../../lib/client/fileChunks';
import { sha256Hex } from '../../lib/client/verifiedChunks';

/** What a whole read ended with: the SHA-256 and length of what it yielded, or the error that stopped it. */
export interface ReadOutcome {
  sha256: string | null;
  bytes: number;
  chunks: number;
  error: { name: string; code: string | null; message: string } | null;
}

/**
 * Reads a project file as the app does over HTTP on this page's origin (FILE-5): each chunk's
 * SHA-256 and the pinned version checked. The socket is never used on this path.
 */
export async function readOverHttp(token: string, projectDirectory: string, path: string): Promise<ReadOutcome> {
  const client = {
    callBinary: () => Promise.reject(new Error('the socket is not used when chunks go over HTTP')),
    httpBytes: { origin: location.origin, token },
  };
  const parts: Uint8Array<ArrayBuffer>[] = [];
  try {
    for await (const chunk of readProjectFileChunks(client, { projectDirectory, path }))
      parts.push(chunk.data as Uint8Array<ArrayBuffer>);
  } catch (error) {
    const e = error as Error & { code?: unknown };
    return {
      sha256: null,
      bytes: 0,
      chunks: parts.length,
      error: { name: e.name, code: typeof e.code === 'string' ? e.code : null, message: e.message },
    };
  }
  const whole = new Uint8Array(await new Blob(parts).arrayBuffer());
  return { sha256: await sha256Hex(whole), bytes: whole.byteLength, chunks: parts.length, error: null };
}
