import type { ErrorCode } from '../../lib/protocol/errors';

/**
 * A failure the caller can act on, with a stable code (RPC-3). The RPC layer renders it as a
 * JSON-RPC error; anything else that escapes a handler is an internal fault.
 */
export class RuntimeError extends Error {
  override readonly name = 'RuntimeError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const notFound = (message: string, data?: Record<string, unknown>) =>
  new RuntimeError('not_found', message, data);
export const conflict = (message: string, data?: Record<string, unknown>) =>
  new RuntimeError('conflict', message, data);
export const invalidParams = (message: string, data?: Record<string, unknown>) =>
  new RuntimeError('invalid_params', message, data);
export const storageError = (message: string, data?: Record<string, unknown>) =>
  new RuntimeError('storage', message, data);
export const unavailable = (message: string, data?: Record<string, unknown>) =>
  new RuntimeError('unavailable', message, data);

/** What the app shows when the desktop ran out of space (RPC-3 `storage`, `data.reason: "disk_full"`). */
export const DISK_FULL_MESSAGE =
  "The desktop's disk is full, so the runtime could not save this. Free some space on the desktop, then try again.";

/** SQLite's "database or disk is full", and the system's "no space left" and "quota exceeded". */
const DISK_FULL_CODES = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT']);

/** True when `error`, or an error it was caused by, says the disk (or the user's quota) is full. */
export function isDiskFull(error: unknown): boolean {
  for (let at = error, depth = 0; at instanceof Error && depth < 5; at = at.cause, depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string' && DISK_FULL_CODES.has(code)) return true;
  }
  return false;
}

export const diskFull = () => storageError(DISK_FULL_MESSAGE, { reason: 'disk_full' });
