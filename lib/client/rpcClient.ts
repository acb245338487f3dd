import type { z } from 'zod';
import { decodeBinaryFrame, encodeBinaryFrame } from '../protocol/binaryFrame';
import { ERROR_CODES, type ErrorCode } from '../protocol/errors';
import { ErrorObjectSchema, NotificationEnvelopeSchema, ResponseEnvelopeSchema } from '../protocol/jsonrpc';
import { methods, type MethodName, type MethodParams, type MethodResult } from '../protocol/methods';
import type { HttpBytesRoute } from './httpBytes';
import {
  isNotificationName,
  notifications,
  type NotificationName,
  type NotificationParams,
} from '../protocol/notifications';

/** The part of the WebSocket API the client needs: the browser's, or `ws` in Node. */
export interface WebSocketLike {
  readonly readyState: number;
  /** Text frames; a Uint8Array goes as one binary frame (binary requests, ATT-1). */
  send(data: string | Uint8Array<ArrayBuffer>): void;
  close(code?: number, reason?: string): void;
  addEventListener(
    type: 'open' | 'close' | 'error' | 'message',
    listener: (event: { data?: unknown; code?: number; reason?: string }) => void,
  ): void;
}

/** An error answer from the runtime, with its stable code (RPC-3). */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  constructor(
    readonly code: ErrorCode | 'closed' | 'invalid_response',
    message: string,
    readonly data: Record<string, unknown> = {},
    readonly jsonrpcCode = 0,
  ) {
    super(message);
  }
}

/** Methods that answer bytes and accept `transfer: "binary"`. */
export type BinaryMethodName = { [M in MethodName]: 'transfer' extends keyof MethodParams<M> ? M : never }[MethodName];

/** Methods that take their bytes raw in a binary request frame. */
export type BinaryRequestMethodName = 'attachments.chunk';

type NotificationListener<N extends NotificationName> = (params: NotificationParams<N>) => void;
type NotificationListeners = { [N in NotificationName]: Set<NotificationListener<N>> };
/** The same schemas, typed per name, so a notification's params keep its method's type. */
const notificationSchemas: { [N in NotificationName]: z.ZodType<NotificationParams<N>> } = notifications;

const OPEN = 1;
/** Dropped frames reported one by one before only every hundredth is. */
const REPORTED_DROPS = 10;

/**
 * A JSON-RPC 2.0 client over one socket. Every result and notification is validated with the
 * same schemas the runtime uses (RPC-1); a reply that does not match is an error, not data.
 */
export class RpcClient {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { method: MethodName; binary: boolean; resolve: (v: unknown) => void; reject: (e: RpcError) => void }
  >();
  /** One set per notification; the type makes a new notification in lib/protocol a compile error here until listed. */
  private readonly listeners: NotificationListeners = {
    'timeline.row': new Set(),
    'sessions.changed': new Set(),
    'preview.changed': new Set(),
    'approval.changed': new Set(),
    'timeline.removed': new Set(),
    'codex.profile.changed': new Set(),
    'usage.changed': new Set(),
    'terminal.output': new Set(),
    'devices.changed': new Set(),
  };
  private closeInfo: { code: number; reason: string } | null = null;
  private dropped = 0;
  /**
   * Set once signed in where the runtime's app origin is reachable over HTTP: file and
   * attachment chunks then travel as HTTP requests, which browsers move faster (FILE-2, ATT-1).
   */
  httpBytes: HttpBytesRoute | null = null;
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(private readonly socket: WebSocketLike) {
    this.opened = new Promise((resolve, reject) => {
      if (socket.readyState === OPEN) resolve();
      socket.addEventListener('open', () => resolve());
      socket.addEventListener('error', () => reject(new RpcError('closed', 'The connection could not be opened.')));
    });
    this.closed = new Promise((resolve) => {
      socket.addEventListener('close', (event) => {
        this.closeInfo = { code: event.code ?? 1006, reason: event.reason ?? '' };
        for (const call of this.pending.values())
          call.reject(
            new RpcError('closed', `The connection closed (${this.closeInfo.code} ${this.closeInfo.reason}).`),
          );
        this.pending.clear();
        resolve(this.closeInfo);
      });
    });
    // The rejection is observed by callers of `opened`; keep it from being reported as unhandled.
    this.opened.catch(() => {});
    socket.addEventListener('message', (event) => this.receive(event.data));
  }

  get isClosed(): boolean {
    return this.closeInfo !== null;
  }

  /**
   * A frame that fails its schema is dropped, never delivered, and counted (RPC-1: never
   * silently); the first few and then every hundredth are reported with the reason and the count.
   */
  private drop(reason: string): void {
    this.dropped++;
    if (this.dropped <= REPORTED_DROPS || this.dropped % 100 === 0)
      console.warn(`Dropped ${reason} (${this.dropped} dropped on this connection).`);
  }

  /** Listens to one notification; the listener gets that notification's params, validated. */
  onNotification<N extends NotificationName>(method: N, listener: NotificationListener<N>): () => void {
    const listeners: Set<NotificationListener<N>> = this.listeners[method];
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  private deliver<N extends NotificationName>(method: N, rawParams: unknown): void {
    const params = notificationSchemas[method].safeParse(rawParams);
    if (!params.success) {
      this.drop(`a ${method} notification that fails its schema: ${params.error.message}`);
      return;
    }
    const listeners: Set<NotificationListener<N>> = this.listeners[method];
    for (const listener of listeners) listener(params.data);
  }

  call<M extends MethodName>(
    method: M,
    ...args: undefined extends MethodParams<M> ? [params?: MethodParams<M>] : [params: MethodParams<M>]
  ): Promise<MethodResult<M>> {
    return this.send(method, args[0], false) as Promise<MethodResult<M>>;
  }

  /**
   * Calls a read method with `transfer: "binary"`: the bytes arrive raw in one binary frame
   * (lib/protocol/binaryFrame.ts) and come back as `data`; `dataBase64` is empty.
   */
  callBinary<M extends BinaryMethodName>(
    method: M,
    params: Omit<MethodParams<M>, 'transfer'>,
  ): Promise<{ result: MethodResult<M>; data: Uint8Array }> {
    return this.send(method, { ...params, transfer: 'binary' }, true) as Promise<{
      result: MethodResult<M>;
      data: Uint8Array;
    }>;
  }

  /**
   * Calls a method that takes bytes (BINARY_REQUEST_METHODS) with the bytes raw after the
   * request in one binary frame (lib/protocol/binaryFrame.ts), without base64.
   */
  callWithBytes<M extends BinaryRequestMethodName>(
    method: M,
    params: MethodParams<M>,
    bytes: Uint8Array,
  ): Promise<MethodResult<M>> {
    return this.send(method, params, false, bytes) as Promise<MethodResult<M>>;
  }

  private send(method: MethodName, params: unknown, binary: boolean, bytes?: Uint8Array): Promise<unknown> {
    if (this.closeInfo) return Promise.reject(new RpcError('closed', 'The connection is closed.'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { method, binary, resolve, reject });
      const request = params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
      this.socket.send(bytes ? encodeBinaryFrame(request, bytes) : JSON.stringify(request));
    });
  }

  close(): void {
    this.socket.close(1000, 'client closed');
  }

  private receive(data: unknown): void {
    if (typeof data !== 'string') {
      const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : data instanceof Uint8Array ? data : null;
      if (bytes) this.receiveBinary(bytes);
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      this.drop('a text frame that is not JSON');
      return;
    }
    const notification = NotificationEnvelopeSchema.safeParse(message);
    if (notification.success && !('id' in (message as object))) {
      if (isNotificationName(notification.data.method))
        this.deliver(notification.data.method, notification.data.params);
      else this.drop(`a notification this app does not know (${notification.data.method})`);
      return;
    }
    const response = ResponseEnvelopeSchema.safeParse(message);
    if (!response.success || typeof response.data.id !== 'number') {
      this.drop('a frame that is neither a notification nor an answer');
      return;
    }
    const call = this.pending.get(response.data.id);
    if (!call) {
      this.drop(`an answer to no call in flight (id ${response.data.id})`);
      return;
    }
    this.pending.delete(response.data.id);
    if ('error' in response.data) {
      const error = ErrorObjectSchema.parse(response.data.error);
      const code = error.data?.code;
      call.reject(
        new RpcError(
          code && (ERROR_CODES as readonly string[]).includes(code) ? code : 'invalid_response',
          error.message,
          error.data ?? {},
          error.code,
        ),
      );
      return;
    }
    const result = methods[call.method].result.safeParse(response.data.result);
    if (!result.success)
      call.reject(
        new RpcError(
          'invalid_response',
          `The runtime answered ${call.method} with an unexpected shape: ${result.error.message}`,
        ),
      );
    else if (call.binary)
      call.reject(new RpcError('invalid_response', `The runtime answered ${call.method} without a binary frame.`));
    else call.resolve(result.data);
  }

  private receiveBinary(frame: Uint8Array): void {
    let decoded;
    try {
      decoded = decodeBinaryFrame(frame);
    } catch {
      this.drop('a binary frame that does not decode');
      return;
    }
    const response = ResponseEnvelopeSchema.safeParse(decoded.header);
    if (!response.success || typeof response.data.id !== 'number' || !('result' in response.data)) {
      this.drop('a binary frame whose header is no answer');
      return;
    }
    const call = this.pending.get(response.data.id);
    if (!call) {
      this.drop(`a binary answer to no call in flight (id ${response.data.id})`);
      return;
    }
    this.pending.delete(response.data.id);
    const result = methods[call.method].result.safeParse(response.data.result);
    if (!result.success)
      call.reject(
        new RpcError(
          'invalid_response',
          `The runtime answered ${call.method} with an unexpected shape: ${result.error.message}`,
        ),
      );
    else call.resolve(call.binary ? { result: result.data, data: decoded.data } : result.data);
  }
}
