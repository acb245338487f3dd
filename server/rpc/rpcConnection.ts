import type { z } from 'zod';
import { JSONRPC_CODES } from '../../lib/protocol/errors';
import { RequestEnvelopeSchema, RequestIdSchema, type RequestId } from '../../lib/protocol/jsonrpc';
import { isMethodName, methods, UNAUTHENTICATED_METHODS, type MethodName } from '../../lib/protocol/methods';
import type { NotificationName, NotificationParams } from '../../lib/protocol/notifications';
import { MAX_FRAME_BYTES } from '../../lib/protocol/version';
import type { Identity } from '../auth/tokens';
import type { Logger } from '../runtime/log';
import { BinaryReply } from './binaryReply';
import type { CallContext, MethodHandlers } from './methodHandlers';
import { errorFrame, frameForThrown, sniffRequestId, type ErrorFrame } from './rpcErrors';

/** The transport as the protocol sees it: `ws` hides behind this (STYLE: tldraw sync-core). */
export interface RpcSocket {
  send(text: string): void;
  /** Sends one binary frame; `sent` runs once the frame's memory may be reused. */
  sendBinary(frame: Buffer, sent: () => void): void;
  close(code: number, reason: string): void;
}

/** Close codes in the private range, so clients can tell why a socket went. */
export const CLOSE_UNAUTHORIZED = 4401;
export const CLOSE_AUTH_TIMEOUT = 4408;

/** A socket that has not said hello by then is closed. */
export const AUTH_TIMEOUT_MS = 15_000;
/** Wrong pairing codes a socket may try before it is closed. */
const MAX_PAIRING_FAILURES = 5;

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : 'params'}: ${issue.message}`)
    .join('; ');
}

/**
 * One client connection (RPC-1…RPC-3): every frame is parsed and validated here, once; bad input
 * becomes an error answer and the socket stays usable. Until `auth.hello` succeeds only the
 * unauthenticated methods are served, and any other first call closes the socket.
 */
export class RpcConnection {
  private identity: Identity | null = null;
  private closed = false;
  private pairingFailures = 0;
  private readonly authTimer: NodeJS.Timeout;

  constructor(
    private readonly socket: RpcSocket,
    private readonly handlers: MethodHandlers,
    private readonly appOrigin: string,
    private readonly log: Logger,
  ) {
    this.authTimer = setTimeout(() => this.close(CLOSE_AUTH_TIMEOUT, 'auth.hello was not sent in time'), AUTH_TIMEOUT_MS);
    this.authTimer.unref();
  }

  get deviceId(): string | null | undefined {
    return this.identity?.deviceId;
  }

  get authenticated(): boolean {
    return this.identity !== null;
  }

  notify<N extends NotificationName>(method: N, params: NotificationParams<N>): void {
    if (!this.authenticated || this.closed) return;
    this.socket.send(JSON.stringify({ jsonrpc: '2.0', method, params }));
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.authTimer);
    this.socket.close(code, reason);
  }

  /**
   * The device was revoked (SEC-1): frames from now on are refused at once, but the answer to the
   * call in flight still goes out before the socket closes, since that call may be the device
   * revoking itself, and every request gets an answer.
   */
  revoke(): void {
    if (this.closed) return;
    this.identity = null;
    setImmediate(() => this.close(CLOSE_UNAUTHORIZED, 'device revoked'));
  }

  /** Marks the socket gone (the peer closed it). */
  detach(): void {
    this.closed = true;
    clearTimeout(this.authTimer);
  }

  private reply(frame: ErrorFrame | { jsonrpc: '2.0'; id: RequestId; result: unknown }): void {
    if (!this.closed) this.socket.send(JSON.stringify(frame));
  }

  async receive(data: Buffer, isBinary: boolean): Promise<void> {
    if (this.closed) return;
    if (isBinary) {
      this.reply(errorFrame(null, 'invalid_params', 'Frames must be JSON text, not binary.', {}, -32600));
      return;
    }
    if (data.length > MAX_FRAME_BYTES) {
      const id = sniffRequestId(data.subarray(0, 512).toString('utf8'));
      this.reply(errorFrame(id, 'too_large', `Frame of ${data.length} bytes is over the ${MAX_FRAME_BYTES}-byte limit.`, { limit: MAX_FRAME_BYTES }));
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(data.toString('utf8'));
    } catch {
      const id = sniffRequestId(data.subarray(0, 512).toString('utf8'));
      this.reply(errorFrame(id, 'invalid_params', 'The frame is not valid JSON.', {}, JSONRPC_CODES.parse_error));
      return;
    }
    const envelope = RequestEnvelopeSchema.safeParse(parsed);
    if (!envelope.success) {
      const rawId = typeof parsed === 'object' && parsed !== null ? (parsed as { id?: unknown }).id : undefined;
      const knownId = RequestIdSchema.safeParse(rawId);
      const id = knownId.success ? knownId.data : null;
      this.reply(errorFrame(id, 'invalid_params', `Not a JSON-RPC 2.0 request: ${describeIssues(envelope.error)}`, {}, -32600));
      return;
    }
    const { id, method, params } = envelope.data;

    if (!this.authenticated && !UNAUTHENTICATED_METHODS.has(method as MethodName)) {
      this.reply(errorFrame(id, 'unauthorized', 'Call auth.hello with a valid token first.'));
      this.close(CLOSE_UNAUTHORIZED, 'unauthorized');
      return;
    }
    if (!isMethodName(method)) {
      this.reply(errorFrame(id, 'not_found', `Unknown method "${method}".`, { method }, JSONRPC_CODES.method_not_found));
      return;
    }
    await this.dispatch(id, method, params);
  }

  private async dispatch(id: RequestId, method: MethodName, rawParams: unknown): Promise<void> {
    const schema = methods[method].params;
    const checked = schema.safeParse(rawParams);
    if (!checked.success) {
      this.reply(errorFrame(id, 'invalid_params', `Invalid params for ${method}: ${describeIssues(checked.error)}`));
      return;
    }
    const ctx: CallContext = {
      identity: this.identity,
      appOrigin: this.appOrigin,
      authenticate: (identity) => {
        this.identity = identity;
        clearTimeout(this.authTimer);
      },
    };
    try {
      const handler = this.handlers[method] as (params: unknown, ctx: CallContext) => unknown;
      const result = await handler(checked.data, ctx);
      if (result instanceof BinaryReply) {
        if (this.closed) result.release();
        else this.socket.sendBinary(result.encode(id), () => result.release());
      } else {
        this.reply({ jsonrpc: '2.0', id, result });
      }
    } catch (thrown) {
      const { frame, internal } = frameForThrown(id, thrown);
      if (internal) this.log.error('request failed', { method, reason: thrown instanceof Error ? thrown.message : String(thrown) });
      this.reply(frame);
      if (method === 'auth.hello' && !this.authenticated) this.close(CLOSE_UNAUTHORIZED, 'unauthorized');
      if (method === 'pair.redeem' && frame.error.data.code === 'unauthorized' && ++this.pairingFailures >= MAX_PAIRING_FAILURES) {
        this.close(CLOSE_UNAUTHORIZED, 'too many wrong pairing codes');
      }
    }
  }
}
