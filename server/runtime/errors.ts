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

export const notFound = (message: string, data?: Record<string, unknown>) => new RuntimeError('not_found', message, data);
export const conflict = (message: string, data?: Record<string, unknown>) => new RuntimeError('conflict', message, data);
export const invalidParams = (message: string, data?: Record<string, unknown>) => new RuntimeError('invalid_params', message, data);
export const storageError = (message: string, data?: Record<string, unknown>) => new RuntimeError('storage', message, data);
export const unavailable = (message: string, data?: Record<string, unknown>) => new RuntimeError('unavailable', message, data);
