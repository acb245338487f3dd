import type { Msg } from '@nats-io/transport-node';
import type WebSocket from 'ws';
import { decodeLinkFrame, LINK_FRAME, MAX_CHANNEL_FRAME_BYTES, RELAY_CLOSE_CODES, type LinkFrame, type RelayNotice } from '../../lib/relay/relayWire';
import { readRoute, type ReceivedRoute } from './natsWire';
import { dropSocket, isOversize, ROUTED_DEVICE_READ_BYTES, sendCounted, setReadLimit } from './nodeBudget';
import { closeReason, sendableCloseCode, type RelayContext } from './relayContext';
import { RelayedConnection } from './relayedConnection';

/** What a device's own close code becomes for its desktop: 1005/1006 (no code, dropped) read as going away. */
function deviceCloseCode(code: number): number {
  return code === 1005 || code === 1006 ? RELAY_CLOSE_CODES.goingAway : sendableCloseCode(code);
}

/**
 * One device's socket on this node (RLY-1, RLY-4): each binary message is a channel frame for
 * its desktop, wherever that desktop's link is. Until the desktop accepted the OPEN, frames may
 * have only a few KiB (the node's server reads no more); then up to a channel frame. Reading
 * pauses while a window of bytes sent to the desktop is un-ACKed; bytes for the device are ACKed
 * once written to its socket.
 */
export class DeviceConnection extends RelayedConnection {
  constructor(ctx: RelayContext, private readonly ws: WebSocket, id: string, desktopId: string, onClosed: (connection: RelayedConnection) => void) {
    super(ctx, id, desktopId, onClosed);
    ws.on('message', (data: Buffer, isBinary) => this.fromDevice(data, isBinary));
    ws.on('close', (code) => this.clientClosed(deviceCloseCode(code), 'The device closed the connection.'));
    ws.on('error', (error) => this.socketError(error));
    this.open(LINK_FRAME.open);
  }

  private fromDevice(data: Buffer, isBinary: boolean): void {
    if (this.closed) return;
    if (!isBinary) {
      this.ctx.log.refused('text_frame', { desktop: this.desktopId, conn: this.id, bytes: data.length });
      this.notice({ type: 'refused', reason: 'text_frame', message: 'A device sends channel frames as binary messages only.' });
      return;
    }
    if (data.length > MAX_CHANNEL_FRAME_BYTES) {
      this.ctx.log.refused('too_large', { desktop: this.desktopId, conn: this.id, bytes: data.length });
      this.notice({ type: 'refused', reason: 'too_large', message: `A channel frame may have at most ${MAX_CHANNEL_FRAME_BYTES} bytes.` });
      return;
    }
    if (data.length === 0) return;
    this.forwardToDesktop(data);
  }

  protected writeToClient(frame: Uint8Array, written: (error?: Error | null) => void): void {
    sendCounted(this.ws, this.ctx.budget, frame, written);
  }

  /** Accepted by its desktop: channel frames of any allowed size from now on. */
  protected routedByDesktop(): void {
    setReadLimit(this.ws, ROUTED_DEVICE_READ_BYTES);
  }

  protected dropClient(): void {
    dropSocket(this.ws);
  }

  protected pauseClient(): void {
    this.ws.pause();
  }

  protected resumeClient(): void {
    this.ws.resume();
  }

  protected get clientPaused(): boolean {
    return this.ws.isPaused;
  }

  /** END is a stream's; a channel has none. */
  protected endFromDesktop(): void {
    this.ctx.log.refused('malformed_nats_message', { desktop: this.desktopId, conn: this.id });
  }

  private notice(notice: RelayNotice): void {
    if (this.ws.readyState === this.ws.OPEN) sendCounted(this.ws, this.ctx.budget, JSON.stringify(notice));
  }

  /** `ws` refused what the device sent (a frame over the read limit: 1009) and is closing the socket. */
  private socketError(error: Error): void {
    if (isOversize(error)) this.ctx.log.refused('too_large', { desktop: this.desktopId, conn: this.id, code: 1009 });
    dropSocket(this.ws);
  }

  /** A paused socket would not read the device's answering close frame, and the close would hang until ws's timeout. */
  protected closeClient(code: number, reason: string): void {
    if (this.ws.isPaused) this.ws.resume();
    this.ws.close(sendableCloseCode(code), closeReason(reason));
  }
}

/** A message for a device or passthrough connection: its connection id, and the control frame when it is one. */
export function parseNodeMessage(msg: Msg): { route: ReceivedRoute; connectionId: string; frame: LinkFrame | null } | null {
  const route = readRoute(msg);
  if (!route) return null;
  if (route.kind === 'part') return { route, connectionId: route.connectionId!, frame: null };
  try {
    const frame = decodeLinkFrame(msg.data);
    return frame.type === LINK_FRAME.data || frame.type === LINK_FRAME.open || frame.type === LINK_FRAME.stream ? null : { route, connectionId: frame.connectionId, frame };
  } catch {
    return null;
  }
}
