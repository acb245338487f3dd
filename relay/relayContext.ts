import type { NatsConnection } from '@nats-io/transport-node';
import { encodeLinkFrame, type LinkFrame } from '../lib/relay/relayWire';
import { routeHeaders } from './natsWire';
import type { LocalDesktopEnd } from './localJoin';
import type { NodeBudget } from './nodeBudget';
import type { NodeLiveness } from './nodeLiveness';
import type { RelayLog } from './relayLog';

/** What the desktop links and passthrough connections of one node share. */
export interface RelayContext {
  nc: NatsConnection;
  nodeId: string;
  log: RelayLog;
  liveness: NodeLiveness;
  /** The relay's public origin, as desktops sign it (`registrationMessage`). */
  publicUrl: string;
  registerTimeoutMs: number;
  openTimeoutMs: number;
  /** Bytes one connection may have un-ACKed per direction (CHANNEL_WINDOW_BYTES unless a test shrinks it). */
  windowBytes: number;
  /** What all sockets of the node may make it hold (RLY-4). */
  budget: NodeBudget;
  /** A desktop link that answers no ping and sends nothing for this long is dropped; its devices are told 4502 (RLY-4). */
  linkPingMs: number;
  nextConnectionId(): string;
  /** The desktop's link when this node holds it and the desktop heard it is linked: its connections join there (RLY-8). */
  localDesktop(desktopId: string): LocalDesktopEnd | null;
}

/** Sends a stream, end, close or ack frame to another node (or this one) over NATS. */
export function publishControl(ctx: RelayContext, subject: string, desktopId: string, frame: LinkFrame): void {
  if (ctx.nc.isClosed()) return;
  ctx.nc.publish(subject, encodeLinkFrame(frame), { headers: routeHeaders({ from: ctx.nodeId, desktopId }, 'frame') });
}

/** A close reason fits a close frame (123 bytes), cut at a character boundary. */
export function closeReason(reason: string): string {
  let out = reason;
  while (Buffer.byteLength(out) > 123) out = out.slice(0, -1);
  return out;
}
