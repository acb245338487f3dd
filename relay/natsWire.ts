import { headers as natsHeaders, type Msg, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { CONNECTION_ID_PATTERN, DESKTOP_ID_PATTERN, MAX_CHANNEL_FRAME_BYTES } from '../lib/relay/relayWire';
import type { NodeBudget } from './nodeBudget';

/**
 * How relay nodes talk to each other over NATS (RLY-4). Every message names the sending node and
 * the desktop its connection belongs to in headers; the payload is either a channel frame's bytes
 * (a part of one) or a control frame (stream, end, close, ack) in the link frame's encoding.
 */
export const SUBJECTS = {
  /** To the node holding the desktop's link. */
  desk: (desktopId: string) => `hbr.desk.${desktopId}`,
  /** To a node, for the device connections it holds. */
  node: (nodeId: string) => `hbr.node.${nodeId}`,
  /** A new registration of the desktop: the node holding an older one lets go (takeover). */
  ctl: (desktopId: string) => `hbr.ctl.${desktopId}`,
  alive: (nodeId: string) => `hbr.alive.${nodeId}`,
  allAlive: 'hbr.alive.*',
} as const;

/** A node id is one NATS subject token and the first part of its connection ids. */
export const NODE_ID_PATTERN = /^[A-Za-z0-9_-]{1,24}$/;

/**
 * NATS refuses messages over the server's max_payload (1 MiB by default); channel frames go in
 * parts of at most this many bytes, leaving room for the headers.
 */
export const NATS_PART_BYTES = 900 * 1024;

const HEADER = {
  kind: 'hbr-k',
  from: 'hbr-from',
  desktop: 'hbr-desk',
  conn: 'hbr-conn',
  more: 'hbr-more',
  registration: 'hbr-reg',
} as const;

/** `frame`: a stream, end, close or ack link frame in the payload; `part`: (part of) a channel frame. */
export type NatsKind = 'frame' | 'part';

export interface RouteMeta {
  from: string;
  desktopId: string;
}

export interface ReceivedRoute extends RouteMeta {
  kind: NatsKind;
  /** Set on parts; a frame's connection id is in its payload. */
  connectionId: string | null;
  more: boolean;
}

export function routeHeaders(meta: RouteMeta, kind: NatsKind, extra: Record<string, string> = {}): MsgHdrs {
  const h = natsHeaders();
  h.set(HEADER.kind, kind);
  h.set(HEADER.from, meta.from);
  h.set(HEADER.desktop, meta.desktopId);
  for (const [name, value] of Object.entries(extra)) h.set(name, value);
  return h;
}

/** The headers of a message from another node, checked; null when anything is missing or malformed. */
export function readRoute(msg: Msg): ReceivedRoute | null {
  const h = msg.headers;
  if (!h) return null;
  const kind = h.get(HEADER.kind);
  const from = h.get(HEADER.from);
  const desktopId = h.get(HEADER.desktop);
  if ((kind !== 'frame' && kind !== 'part') || !NODE_ID_PATTERN.test(from) || !DESKTOP_ID_PATTERN.test(desktopId))
    return null;
  if (kind === 'frame') return { kind, from, desktopId, connectionId: null, more: false };
  const connectionId = h.get(HEADER.conn);
  if (!CONNECTION_ID_PATTERN.test(connectionId)) return null;
  return { kind, from, desktopId, connectionId, more: h.get(HEADER.more) === '1' };
}

/** Publishes one channel frame for `connectionId`, in parts when it is larger than one NATS message may be. */
export function publishChannelFrame(
  nc: NatsConnection,
  subject: string,
  meta: RouteMeta,
  connectionId: string,
  frame: Uint8Array,
): void {
  for (let offset = 0; offset < frame.length || offset === 0; offset += NATS_PART_BYTES) {
    const end = Math.min(frame.length, offset + NATS_PART_BYTES);
    const more = end < frame.length;
    nc.publish(subject, frame.subarray(offset, end), {
      headers: routeHeaders(meta, 'part', { [HEADER.conn]: connectionId, [HEADER.more]: more ? '1' : '0' }),
    });
    if (!more) break;
  }
}

export const REGISTRATION_HEADER = HEADER.registration;

/**
 * Joins a connection's channel frame parts in arrival order (NATS keeps one publisher's order on
 * a subject). A frame that grows past MAX_CHANNEL_FRAME_BYTES is dropped whole; a part that would
 * take the node past its budget is refused (`over_budget`) and the connection is to be closed.
 */
export class FrameJoiner {
  private parts: Uint8Array[] = [];
  private bytes = 0;
  private dropping = false;

  constructor(private readonly budget: NodeBudget) {}

  /** The whole frame once its last part came; null while parts are missing; 'too_large' when it was dropped. */
  add(part: Uint8Array, more: boolean): Uint8Array | null | 'too_large' | 'over_budget' {
    if (this.bytes + part.length > MAX_CHANNEL_FRAME_BYTES) {
      this.release();
      // The rest of the oversize frame's parts are dropped with it.
      this.dropping = more;
      return 'too_large';
    }
    if (this.dropping) {
      this.dropping = more;
      return null;
    }
    if (!more && this.parts.length === 0) return part;
    if (more && !this.budget.fits(part.length)) {
      this.release();
      return 'over_budget';
    }
    // A view of the socket's chunk, which NATS never reuses: kept without a copy.
    this.parts.push(part);
    this.bytes += part.length;
    this.budget.add(part.length);
    if (more) return null;
    const whole = Buffer.concat(this.parts, this.bytes);
    this.release();
    return whole;
  }

  /** Bytes held for a frame still missing parts. */
  get pendingBytes(): number {
    return this.bytes;
  }

  /** Lets go of a frame still missing parts (the connection ended). */
  release(): void {
    this.budget.add(-this.bytes);
    this.parts = [];
    this.bytes = 0;
  }
}
