import type { z } from 'zod';
import { CLOSE_CODES } from '../../lib/protocol/closeCodes';
import { JSONRPC_CODES } from '../../lib/protocol/errors';
import { RequestEnvelopeSchema, RequestIdSchema, type RequestId } from '../../lib/protocol/jsonrpc';
import { decodeBinaryFrame } from '../../lib/protocol/binaryFrame';
import {
  BINARY_REQUEST_METHODS,
  isMethodName,
  methods,
  UNAUTHENTICATED_METHODS,
  type MethodName,
} from '../../lib/protocol/methods';
import type { RpcNotification } from '../../lib/protocol/notifications';
import type { Identity } from '../auth/deviceAuth';
import type { Logger } from '../runtime/log';
import { BinaryReply } from './binaryReply';
import type { CallContext, MethodHandlers } from './methodHandlers';
import { notificationKey } from './notificationKeys';
import { errorFrame, frameForThrown, sniffRequestId, type ErrorFrame } from './rpcErrors';
import type { RpcSocket } from './rpcSocket';
import { SendBackpressure } from './sendBackpressure';
import { DEFAULT_SOCKET_LIMITS, type SocketLimits } from './socketLimits';

export type { RpcSocket } from './rpcSocket';

/** Wrong pairing codes a socket may try before it is closed. */
const MAX_PAIRING_FAILURES = 5;

/** Close reasons (at most 123 bytes each, the WebSocket limit). */
const NOT_READING = 'This client is not reading its answers; reconnect to continue.';
const TOO_MANY_HELD_UPDATES = 'Too many updates wait unread; reconnect to read them again.';
const CLOSING_STILL_SENDING = 'This socket is closing and may not send more.';
/** Shown on the revoked device's pair screen (DEV-1). */
const DEVICE_REVOKED = "This device's token was revoked: signed out or removed from the device list. Pair it again.";

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : 'params'}: ${issue.message}`)
    .join('; ');
}

/**
 * One client connection (RPC-1…RPC-3, SEC-9): every frame is parsed and validated here, once; bad
 * input becomes an error answer and the socket stays usable. Until `auth.hello` succeeds only the
 * unauthenticated methods are served, any other first call closes the socket, and the socket may
 * send only a small budget of bytes. Answers the client does not read hold its requests back.
 */
export class RpcConnection {
  private identity: Identity | null = null;
  private closed = false;
  /** Aborted when the socket goes, so long work for it stops (CallContext.signal). */
  private readonly gone = new AbortController();
  private pairingFailures = 0;
  private bytesBeforeAuth = 0;
  private bytesAfterClose = 0;
  private readonly authTimer: NodeJS.Timeout;
  private readonly pressure: SendBackpressure;
  /** Requests that arrived while the socket was held, in order. */
  private readonly heldRequests: { data: Buffer; isBinary: boolean }[] = [];
  /** The latest notification of each subject while the socket is held (SEC-9). */
  private readonly heldNotifications = new Map<string, string>();

  constructor(
    private readonly socket: RpcSocket,
    private readonly handlers: MethodHandlers,
    private readonly appOrigin: string,
    private readonly log: Logger,
    private readonly limits: SocketLimits = DEFAULT_SOCKET_LIMITS,
  ) {
    // RPC-2 / SEC-9: dropped, not closed politely: a polite close would keep reading for 30 s more.
    this.authTimer = setTimeout(
      () => this.terminate(CLOSE_CODES.authTimeout, 'auth.hello was not sent in time'),
      limits.authTimeoutMs,
    );
    this.authTimer.unref();
    this.pressure = new SendBackpressure(socket, limits, {
      released: () => this.releaseHeld(),
      stalled: (queuedBytes) => {
        this.log.warn('closing a socket that stopped reading its answers', { queuedBytes });
        this.close(CLOSE_CODES.notReading, NOT_READING);
      },
      overflowed: (queuedBytes) => {
        this.log.warn('dropping a socket that stopped reading its answers', { queuedBytes });
        this.terminate(CLOSE_CODES.notReading, NOT_READING);
      },
    });
  }

  get deviceId(): string | null | undefined {
    return this.identity?.deviceId;
  }

  get authenticated(): boolean {
    return this.identity !== null;
  }

  notify(notification: RpcNotification): void {
    if (!this.authenticated || this.closed) return;
    const text = JSON.stringify({ jsonrpc: '2.0', method: notification.method, params: notification.params });
    if (!this.pressure.isHeld) {
      this.send(text);
      return;
    }
    // SEC-9: a held socket keeps only the latest update of each subject, in the order they last changed.
    const key = notificationKey(notification);
    this.heldNotifications.delete(key);
    this.heldNotifications.set(key, text);
    if (this.heldNotifications.size > this.limits.maxHeldNotifications)
      this.close(CLOSE_CODES.tryAgainLater, TOO_MANY_HELD_UPDATES);
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.forget();
    this.socket.close(code, reason);
  }

  private terminate(code: number, reason: string): void {
    if (this.closed) return;
    this.forget();
    this.socket.terminate(code, reason);
  }

  private forget(): void {
    this.closed = true;
    this.gone.abort();
    clearTimeout(this.authTimer);
    this.pressure.stop();
    this.heldRequests.length = 0;
    this.heldNotifications.clear();
  }

  /**
   * The device was revoked (SEC-1): frames from now on are refused at once, but the answer to the
   * call in flight still goes out before the socket closes, since that call may be the device
   * revoking itself, and every request gets an answer.
   */
  revoke(): void {
    if (this.closed) return;
    this.identity = null;
    setImmediate(() => this.close(CLOSE_CODES.unauthorized, DEVICE_REVOKED));
  }

  /** Marks the socket gone (the peer closed it). */
  detach(): void {
    this.forget();
  }

  /**
   * Bytes read off the wire, whole frames or not (SEC-9): `ws` holds a frame until it is complete,
   * so the pre-auth budget is counted here, before any frame reaches `receive`.
   */
  countIncomingBytes(n: number): void {
    if (this.closed) {
      this.countBytesAfterClose(n);
      return;
    }
    if (this.authenticated) return;
    this.bytesBeforeAuth += n;
    if (this.bytesBeforeAuth > this.limits.preAuthBytes) {
      this.log.warn('dropping a socket that sent too much before auth.hello', { bytes: this.bytesBeforeAuth });
      this.terminate(
        CLOSE_CODES.tooLargeBeforeAuth,
        `At most ${this.limits.preAuthBytes} bytes may be sent before auth.hello.`,
      );
    }
  }

  /**
   * SEC-9: a socket told to close still reads until the peer's close frame or `ws`'s 30 s timer,
   * and `ws` holds any frame that arrives meanwhile; past the pre-auth budget it is dropped.
   */
  private countBytesAfterClose(n: number): void {
    const before = this.bytesAfterClose;
    this.bytesAfterClose += n;
    if (before <= this.limits.preAuthBytes && this.bytesAfterClose > this.limits.preAuthBytes) {
      this.log.warn('dropping a closing socket that keeps sending', { bytes: this.bytesAfterClose });
      this.socket.terminate(CLOSE_CODES.tooLargeBeforeAuth, CLOSING_STILL_SENDING);
    }
  }

  private send(data: string | Buffer, sent?: () => void): void {
    this.socket.send(data, () => {
      sent?.();
      this.pressure.check();
    });
    this.pressure.check();
  }

  private reply(frame: ErrorFrame | { jsonrpc: '2.0'; id: RequestId; result: unknown }): void {
    if (!this.closed) this.send(JSON.stringify(frame));
  }

  private releaseHeld(): void {
    const notifications = [...this.heldNotifications.values()];
    this.heldNotifications.clear();
    for (const text of notifications) this.send(text);
    while (!this.closed && !this.pressure.isHeld && this.heldRequests.length > 0) {
      const next = this.heldRequests.shift()!;
      void this.handleFrame(next.data, next.isBinary);
    }
  }

  async receive(data: Buffer, isBinary: boolean): Promise<void> {
    if (this.closed) return;
    // SEC-9: a socket whose answers wait unread gets no new ones; its requests wait, in order.
    if (this.pressure.isHeld || this.heldRequests.length > 0) {
      this.heldRequests.push({ data, isBinary });
      return;
    }
    await this.handleFrame(data, isBinary);
  }

  private async handleFrame(data: Buffer, isBinary: boolean): Promise<void> {
    const limit = this.limits.maxFrameBytes;
    if (data.length > limit) {
      const id = sniffRequestId(data.subarray(0, 512).toString('utf8'));
      this.reply(
        errorFrame(id, 'too_large', `Frame of ${data.length} bytes is over the ${limit}-byte limit.`, { limit }),
      );
      return;
    }
    let parsed: unknown;
    let requestBytes: Buffer | undefined;
    try {
      if (isBinary) {
        // ATT-1: a binary frame is a request followed by its bytes, for the methods that take bytes.
        const frame = decodeBinaryFrame(data);
        parsed = frame.header;
        requestBytes = Buffer.from(frame.data.buffer, frame.data.byteOffset, frame.data.byteLength);
      } else {
        parsed = JSON.parse(data.toString('utf8'));
      }
    } catch {
      if (isBinary) {
        this.reply(
          errorFrame(
            null,
            'invalid_params',
            'Frames must be JSON text, or a binary request of a method that takes bytes.',
            {},
            -32600,
          ),
        );
        return;
      }
      const id = sniffRequestId(data.subarray(0, 512).toString('utf8'));
      this.reply(errorFrame(id, 'invalid_params', 'The frame is not valid JSON.', {}, JSONRPC_CODES.parse_error));
      return;
    }
    const envelope = RequestEnvelopeSchema.safeParse(parsed);
    if (!envelope.success) {
      const rawId = typeof parsed === 'object' && parsed !== null ? (parsed as { id?: unknown }).id : undefined;
      const knownId = RequestIdSchema.safeParse(rawId);
      const id = knownId.success ? knownId.data : null;
      this.reply(
        errorFrame(id, 'invalid_params', `Not a JSON-RPC 2.0 request: ${describeIssues(envelope.error)}`, {}, -32600),
      );
      return;
    }
    const { id, method, params } = envelope.data;
    if (requestBytes && !BINARY_REQUEST_METHODS.has(method as MethodName)) {
      this.reply(
        errorFrame(id, 'invalid_params', `${method} takes no bytes: send it as a JSON text frame.`, {}, -32600),
      );
      return;
    }

    if (!this.authenticated && !UNAUTHENTICATED_METHODS.has(method as MethodName)) {
      this.reply(errorFrame(id, 'unauthorized', 'Call auth.hello with a valid token first.'));
      this.close(CLOSE_CODES.unauthorized, 'unauthorized');
      return;
    }
    if (!isMethodName(method)) {
      this.reply(
        errorFrame(id, 'not_found', `Unknown method "${method}".`, { method }, JSONRPC_CODES.method_not_found),
      );
      return;
    }
    await this.dispatch(id, method, params, requestBytes);
  }

  private async dispatch(id: RequestId, method: MethodName, rawParams: unknown, requestBytes?: Buffer): Promise<void> {
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
      ...(requestBytes ? { requestBytes } : {}),
      signal: this.gone.signal,
    };
    try {
      const handler = this.handlers[method] as (params: unknown, ctx: CallContext) => unknown;
      const result = await handler(checked.data, ctx);
      if (result instanceof BinaryReply) {
        if (this.closed) result.release();
        else this.send(result.encode(id), () => result.release());
      } else {
        this.reply({ jsonrpc: '2.0', id, result });
      }
    } catch (thrown) {
      const { frame, internal, faultId } = frameForThrown(id, thrown);
      if (internal)
        this.log.error(
          'request failed',
          {
            method,
            requestId: String(id),
            faultId: faultId ?? null,
            reason: thrown instanceof Error ? thrown.message : String(thrown),
          },
          thrown,
        );
      this.reply(frame);
      if (method === 'auth.hello' && !this.authenticated) this.close(CLOSE_CODES.unauthorized, 'unauthorized');
      if (
        method === 'pair.redeem' &&
        frame.error.data.code === 'unauthorized' &&
        ++this.pairingFailures >= MAX_PAIRING_FAILURES
      ) {
        this.close(CLOSE_CODES.unauthorized, 'too many wrong pairing codes');
      }
    }
  }
}
