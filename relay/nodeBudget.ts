import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { MAX_CHANNEL_FRAME_BYTES } from '../lib/relay/relayWire';

/**
 * The largest frame a desktop link may send before it proved its id (RLY-4): the registration is
 * a few hundred bytes.
 */
export const DEFAULT_UNROUTED_FRAME_BYTES = 8 * 1024;

/** What all of one node's sockets may make it hold at once (RLY-4), unless `--memory-budget-mib` says otherwise. */
export const DEFAULT_MEMORY_BUDGET_BYTES = 256 * 1024 * 1024;

/** ws reads a routed frame a little over the limit so it can be refused with a notice instead of a close. */
const READ_SLACK_BYTES = 1024 * 1024;
/** What a registered desktop may send in one message: a DATA link frame is a channel frame and its header. */
export const ROUTED_LINK_READ_BYTES = MAX_CHANNEL_FRAME_BYTES + 256 + READ_SLACK_BYTES;

export const OVER_BUDGET_REASON = 'The relay node is out of room for buffers: try again later.';

/** A socket dropped by the node gets this long to take its close frame before it is destroyed. */
const DROP_GRACE_MS = 2_000;

/**
 * The bytes one node holds for all its sockets (RLY-4): their write buffers, channel frames still
 * being joined from NATS parts, and frames still arriving on a socket. A connection whose next
 * frame would take the node past the limit is closed instead.
 */
export class NodeBudget {
  private held = 0;
  private readonly waiting = new Set<() => void>();

  constructor(readonly limitBytes: number) {}

  get heldBytes(): number {
    return this.held;
  }

  /** Whether `bytes` more fit in the budget. */
  fits(bytes: number): boolean {
    return this.held + bytes <= this.limitBytes;
  }

  /** Counts bytes taken (positive) or let go (negative). */
  add(bytes: number): void {
    this.held += bytes;
    if (bytes < 0 && this.waiting.size > 0 && this.held <= this.limitBytes) {
      const waiting = [...this.waiting];
      this.waiting.clear();
      for (const resume of waiting) resume();
    }
  }

  /** `resume` runs once, when bytes are let go and the node is within its budget again. */
  whenRoom(resume: () => void): void {
    this.waiting.add(resume);
  }
}

/** What `ws` keeps of its receiver: the fields read and set here. */
interface ReceiverFields {
  _maxPayload: number;
  _bufferedBytes: number;
  _messageLength: number;
}

// NOTE: `ws` (pinned) has no public way to change one socket's maxPayload after the upgrade or to
// say how much of a frame it holds. Both are fields of its Receiver, read and set here only; the
// relay tests fail loudly if a `ws` update renames them (a routed 32 MiB frame would be refused,
// and an attacker's partial frames would not be counted).
function receiverOf(ws: WebSocket): ReceiverFields | null {
  const receiver = (ws as unknown as { _receiver?: Partial<ReceiverFields> })._receiver;
  return receiver && typeof receiver._maxPayload === 'number' ? (receiver as ReceiverFields) : null;
}

/** The largest message `ws` reads from this socket from now on; a larger one is refused at its header (1009) and not read. */
export function setReadLimit(ws: WebSocket, bytes: number): void {
  const receiver = receiverOf(ws);
  if (receiver) receiver._maxPayload = bytes;
}

/** Bytes of a message `ws` has read from the socket but not yet delivered. */
function receiverHeldBytes(ws: WebSocket): number {
  const receiver = receiverOf(ws);
  return receiver ? (receiver._bufferedBytes | 0) + (receiver._messageLength | 0) : 0;
}

/** Sends and counts the bytes in the budget until `ws` has written them; `written` runs then. */
export function sendCounted(
  ws: WebSocket,
  budget: NodeBudget,
  data: Uint8Array | string,
  written?: (error?: Error) => void,
): void {
  const bytes = typeof data === 'string' ? Buffer.byteLength(data) : data.length;
  budget.add(bytes);
  ws.send(data, { binary: typeof data !== 'string' }, (error) => {
    budget.add(-bytes);
    written?.(error);
  });
}

/** Whether `ws` failed on a message over its read limit (it sent 1009 and reads no more of it). */
export function isOversize(error: Error): boolean {
  return (error as { code?: string }).code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH';
}

/** The TCP socket under each of the node's WebSockets, for `dropSocket`. */
const rawSockets = new WeakMap<WebSocket, Duplex>();

/**
 * After `ws.close()`: reads nothing more from the socket (so nothing more is held), lets the
 * close frame go out, and destroys the socket soon whether or not the peer answers or reads.
 */
export function dropSocket(ws: WebSocket): void {
  const socket = rawSockets.get(ws);
  if (!socket || socket.destroyed) {
    ws.terminate();
    return;
  }
  // Not even read to be thrown away: a refused 33 MiB frame costs the node no more than its header.
  const stopReading = () => socket.pause();
  stopReading();
  // `ws` resumes a socket whose frame it refused, on the next tick: paused again after that.
  setImmediate(stopReading);
  socket.end();
  const timer = setTimeout(() => socket.destroy(), DROP_GRACE_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

/**
 * Counts what `ws` holds of frames still arriving on `socket` in the node's budget; `over` runs
 * when a chunk takes the node past it (the connection then closes). Runs after `ws` read each
 * chunk: its own listener came first.
 */
export function meterIncoming(ws: WebSocket, socket: Duplex, budget: NodeBudget, over: () => void): void {
  rawSockets.set(ws, socket);
  let counted = 0;
  const update = () => {
    const now = receiverHeldBytes(ws);
    budget.add(now - counted);
    const grew = now > counted;
    counted = now;
    return grew;
  };
  socket.on('data', () => {
    if (update() && budget.heldBytes > budget.limitBytes) over();
  });
  ws.once('close', () => {
    budget.add(-counted);
    counted = 0;
  });
}
