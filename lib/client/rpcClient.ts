import { decodeBinaryFrame } from '../protocol/binaryFrame';
import { ERROR_CODES, type ErrorCode } from '../protocol/errors';
import { ErrorObjectSchema, NotificationEnvelopeSchema, ResponseEnvelopeSchema } from '../protocol/jsonrpc';
import { methods, type MethodName, type MethodParams, type MethodResult } from '../protocol/methods';
import { notifications, type NotificationName, type NotificationParams } from '../protocol/notifications';

/** The part of the WebSocket API the client needs: the browser's, or `ws` in Node. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'close' | 'error' | 'message', listener: (event: { data?: unknown; code?: number; reason?: string }) => void): void;
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

type NotificationListener = <N extends NotificationName>(method: N, params: NotificationParams<N>) => void;

const OPEN = 1;

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
  private readonly listeners = new Set<NotificationListener>();
  private closeInfo: { code: number; reason: string } | null = null;
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
        for (const call of this.pending.values()) call.reject(new RpcError('closed', `The connection closed (${this.closeInfo.code} ${this.closeInfo.reason}).`));
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

  onNotification(listener: NotificationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  call<M extends MethodName>(method: M, ...args: undefined extends MethodParams<M> ? [params?: MethodParams<M>] : [params: MethodParams<M>]): Promise<MethodResult<M>> {
    return this.send(method, args[0], false) as Promise<MethodResult<M>>;
  }

  /**
   * Calls a read method with `transfer: "binary"`: the bytes arrive raw in one binary frame
   * (lib/protocol/binaryFrame.ts) and come back as `data`; `dataBase64` is empty.
   */
  callBinary<M extends BinaryMethodName>(method: M, params: Omit<MethodParams<M>, 'transfer'>): Promise<{ result: MethodResult<M>; data: Uint8Array }> {
    return this.send(method, { ...params, transfer: 'binary' }, true) as Promise<{ result: MethodResult<M>; data: Uint8Array }>;
  }

  private send(method: MethodName, params: unknown, binary: boolean): Promise<unknown> {
    if (this.closeInfo) return Promise.reject(new RpcError('closed', 'The connection is closed.'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { method, binary, resolve, reject });
      this.socket.send(JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params }));
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
      return;
    }
    const notification = NotificationEnvelopeSchema.safeParse(message);
    if (notification.success && !('id' in (message as object))) {
      const name = notification.data.method as NotificationName;
      const schema = notifications[name];
      const params = schema?.safeParse(notification.data.params);
      if (params?.success) for (const listener of this.listeners) listener(name, params.data as NotificationParams<typeof name>);
      return;
    }
    const response = ResponseEnvelopeSchema.safeParse(message);
    if (!response.success || typeof response.data.id !== 'number') return;
    const call = this.pending.get(response.data.id);
    if (!call) return;
    this.pending.delete(response.data.id);
    if ('error' in response.data) {
      const error = ErrorObjectSchema.parse(response.data.error);
      const code = error.data?.code;
      call.reject(new RpcError(code && (ERROR_CODES as readonly string[]).includes(code) ? code : 'invalid_response', error.message, error.data ?? {}, error.code));
      return;
    }
    const result = methods[call.method].result.safeParse(response.data.result);
    if (!result.success) call.reject(new RpcError('invalid_response', `The runtime answered ${call.method} with an unexpected shape: ${result.error.message}`));
    else if (call.binary) call.reject(new RpcError('invalid_response', `The runtime answered ${call.method} without a binary frame.`));
    else call.resolve(result.data);
  }

  private receiveBinary(frame: Uint8Array): void {
    let decoded;
    try {
      decoded = decodeBinaryFrame(frame);
    } catch {
      return;
    }
    const response = ResponseEnvelopeSchema.safeParse(decoded.header);
    if (!response.success || typeof response.data.id !== 'number' || !('result' in response.data)) return;
    const call = this.pending.get(response.data.id);
    if (!call) return;
    this.pending.delete(response.data.id);
    const result = methods[call.method].result.safeParse(response.data.result);
    if (!result.success) call.reject(new RpcError('invalid_response', `The runtime answered ${call.method} with an unexpected shape: ${result.error.message}`));
    else call.resolve(call.binary ? { result: result.data, data: decoded.data } : result.data);
  }
}
