import crypto from 'node:crypto';
import { JSONRPC_CODES, type ErrorCode } from '../../lib/protocol/errors';
import type { RequestId } from '../../lib/protocol/jsonrpc';
import { diskFull, isDiskFull, RuntimeError } from '../runtime/errors';

export interface ErrorFrame {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: { code: number; message: string; data: { code: ErrorCode } & Record<string, unknown> };
}

export function errorFrame(
  id: RequestId | null,
  code: ErrorCode,
  message: string,
  data: Record<string, unknown> = {},
  jsonrpcCode = JSONRPC_CODES[code],
): ErrorFrame {
  return { jsonrpc: '2.0', id, error: { code: jsonrpcCode, message, data: { ...data, code } } };
}

/**
 * Renders whatever a handler threw: typed errors keep their code; a full disk, from SQLite or a
 * file write, is a `storage` error the user can act on (RPC-3); anything else is internal, and
 * gets a fault id that the answer and the runtime's log line (with the stack) both carry.
 */
export function frameForThrown(
  id: RequestId | null,
  thrown: unknown,
): { frame: ErrorFrame; internal: boolean; faultId?: string } {
  if (thrown instanceof RuntimeError)
    return { frame: errorFrame(id, thrown.code, thrown.message, thrown.data), internal: false };
  if (isDiskFull(thrown)) {
    const full = diskFull();
    return { frame: errorFrame(id, full.code, full.message, full.data), internal: false };
  }
  const faultId = crypto.randomBytes(4).toString('hex');
  return {
    frame: errorFrame(
      id,
      'unavailable',
      `The runtime could not complete this request (fault ${faultId}; the desktop's log has the details).`,
      { faultId },
      -32603,
    ),
    internal: true,
    faultId,
  };
}

/** Best-effort id of a frame too large or too broken to parse, so the client can match the error. */
export function sniffRequestId(head: string): RequestId | null {
  const match = /"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,128}")/.exec(head);
  if (!match) return null;
  const raw = match[1]!;
  try {
    return JSON.parse(raw) as RequestId;
  } catch {
    return null;
  }
}
