import type { Msg } from '@nats-io/transport-node';
import type WebSocket from 'ws';
import { decodeLinkFrame, encodeLinkFrame, LINK_FRAME, MAX_CHANNEL_FRAME_BYTES, RELAY_CLOSE_CODES, type LinkFrame, type RelayNotice } from '../../lib/relay/relayWire';
import { FrameJoiner, publishChannelFrame, readRoute, routeHeaders, SUBJECTS, type ReceivedRoute } from './natsWire';
import { dropSocket, isOversize, OVER_BUDGET_REASON, ROUTED_DEVICE_READ_BYTES, sendCounted, setReadLimit } from './nodeBudget';
import { closeReason, publishControl, sendableCloseCode, type RelayContext } from './relayContext';

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
export class DeviceConnection {
  /** The node holding the desktop's link, once it answered the OPEN. */
  private desktopNode: string | null = null;
  private unackedToDesktop = 0;
  /** DATA bytes handed to the socket whose write has not completed. */
  private pendingToDevice = 0;
  /** Bytes written to the device, not yet ACKed to the desktop (ACKs are sent once per turn of the event loop). */
  private ackDue = 0;
  private ackScheduled = false;
  private readonly joiner: FrameJoiner;
  private closed = false;

  constructor(
    private readonly ctx: RelayContext,
    private readonly ws: WebSocket,
    readonly id: string,
    readonly desktopId: string,
    private readonly onClosed: (connection: DeviceConnection) => void,
  ) {
    this.joiner = new FrameJoiner(ctx.budget);
    ws.on('message', (data: Buffer, isBinary) => this.fromDevice(data, isBinary));
    ws.on('close', (code) => this.deviceClosed(code));
    ws.on('error', (error) => this.socketError(error));
    this.open();
  }

  /** Whether the desktop accepted the OPEN. */
  get routed(): boolean {
    return this.desktopNode !== null;
  }

  /** Closes the device's socket; `tellDesktop` sends the desktop a CLOSE too. */
  close(code: number, reason: string, tellDesktop: boolean): void {
    if (this.closed) return;
    if (tellDesktop) this.toDesktop({ type: LINK_FRAME.close, connectionId: this.id, code, reason });
    this.finish();
    this.closeSocket(code, reason);
  }

  /** The device's desktop's node went silent: the channel is gone. */
  sweep(): void {
    if (this.desktopNode !== null && !this.ctx.liveness.isAlive(this.desktopNode)) {
      this.ctx.log.info('desktop node went silent', { desktop: this.desktopId, conn: this.id, node: this.desktopNode, code: RELAY_CLOSE_CODES.desktopGone });
      this.close(RELAY_CLOSE_CODES.desktopGone, 'The desktop’s relay node went away.', false);
    }
  }

  /** A message on this node's subject for this connection; `route` is already checked for shape. */
  fromNats(route: ReceivedRoute, msg: Msg, frame: LinkFrame | null): void {
    if (this.closed) return;
    if (route.desktopId !== this.desktopId) {
      this.ctx.log.refused('foreign_desktop', { desktop: route.desktopId, conn: this.id });
      return;
    }
    if (this.desktopNode !== null && route.from !== this.desktopNode) {
      this.ctx.log.refused('foreign_node', { desktop: this.desktopId, conn: this.id, node: route.from });
      return;
    }
    if (frame === null) {
      const whole = this.joiner.add(msg.data, route.more);
      if (whole === 'too_large') this.ctx.log.refused('too_large', { desktop: this.desktopId, conn: this.id });
      else if (whole === 'over_budget') this.overBudget();
      else if (whole) this.toDevice(whole);
      return;
    }
    if (frame.type === LINK_FRAME.close) {
      this.finish();
      this.closeSocket(frame.code, frame.reason);
    } else if (frame.type === LINK_FRAME.ack) {
      this.unackedToDesktop = Math.max(0, this.unackedToDesktop - frame.bytes);
      if (this.ws.isPaused && this.unackedToDesktop < this.resumeBelow()) this.ws.resume();
    }
  }

  private open(): void {
    const request = this.ctx.nc.request(SUBJECTS.desk(this.desktopId), encodeLinkFrame({ type: LINK_FRAME.open, connectionId: this.id }), {
      timeout: this.ctx.openTimeoutMs,
      headers: routeHeaders({ from: this.ctx.nodeId, desktopId: this.desktopId }, 'frame'),
    });
    request.then(
      (reply) => {
        const route = readRoute(reply);
        if (this.closed) return;
        if (!route || route.desktopId !== this.desktopId) {
          this.ctx.log.refused('malformed_nats_message', { desktop: this.desktopId, conn: this.id });
          this.close(RELAY_CLOSE_CODES.desktopOffline, 'The desktop is not linked to the relay.', false);
          return;
        }
        this.desktopNode = route.from;
        this.ctx.liveness.heard(route.from);
        // Accepted by its desktop: channel frames of any allowed size from now on.
        setReadLimit(this.ws, ROUTED_DEVICE_READ_BYTES);
      },
      () => {
        this.ctx.log.refused('desktop_offline', { desktop: this.desktopId, conn: this.id, code: RELAY_CLOSE_CODES.desktopOffline });
        this.close(RELAY_CLOSE_CODES.desktopOffline, 'The desktop is not linked to the relay.', false);
      },
    );
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
    // Published even before the OPEN's answer: NATS keeps this node's order on the subject, so the
    // desktop's node has the connection by the time the frame arrives.
    publishChannelFrame(this.ctx.nc, SUBJECTS.desk(this.desktopId), { from: this.ctx.nodeId, desktopId: this.desktopId }, this.id, data);
    this.unackedToDesktop += data.length;
    if (this.unackedToDesktop >= this.resumeBelow() && !this.ws.isPaused) this.ws.pause();
  }

  /** Paused at this many un-ACKed bytes, so one more frame of any allowed size still fits the window. */
  private resumeBelow(): number {
    return Math.max(1, this.ctx.windowBytes - MAX_CHANNEL_FRAME_BYTES);
  }

  private toDevice(frame: Uint8Array): void {
    this.pendingToDevice += frame.length;
    if (this.pendingToDevice > this.ctx.windowBytes) {
      // The desktop's node enforces the window; this bounds the memory here whatever it does.
      this.ctx.log.refused('window_exceeded', { desktop: this.desktopId, conn: this.id, bytes: this.pendingToDevice });
      this.close(RELAY_CLOSE_CODES.notReading, 'The desktop sent past its window.', true);
      return;
    }
    if (!this.ctx.budget.fits(frame.length)) {
      this.pendingToDevice -= frame.length;
      this.overBudget();
      return;
    }
    sendCounted(this.ws, this.ctx.budget, frame, (error) => {
      this.pendingToDevice -= frame.length;
      if (error || this.closed) return;
      this.ackDue += frame.length;
      if (this.ackScheduled) return;
      this.ackScheduled = true;
      setImmediate(() => this.sendAck());
    });
  }

  private sendAck(): void {
    this.ackScheduled = false;
    if (this.closed || this.ackDue === 0) return;
    this.toDesktop({ type: LINK_FRAME.ack, connectionId: this.id, bytes: this.ackDue });
    this.ackDue = 0;
  }

  private notice(notice: RelayNotice): void {
    if (this.ws.readyState === this.ws.OPEN) sendCounted(this.ws, this.ctx.budget, JSON.stringify(notice));
  }

  /** Holding this connection's next frame would take the node past its budget: the connection ends instead. */
  overBudget(): void {
    if (this.closed) return;
    this.ctx.log.refused('over_budget', { desktop: this.desktopId, conn: this.id, bytes: this.ctx.budget.heldBytes, code: RELAY_CLOSE_CODES.tryAgainLater });
    this.close(RELAY_CLOSE_CODES.tryAgainLater, OVER_BUDGET_REASON, true);
    dropSocket(this.ws);
  }

  /** `ws` refused what the device sent (a frame over the read limit: 1009) and is closing the socket. */
  private socketError(error: Error): void {
    if (isOversize(error)) this.ctx.log.refused('too_large', { desktop: this.desktopId, conn: this.id, code: 1009 });
    dropSocket(this.ws);
  }

  private toDesktop(frame: LinkFrame): void {
    publishControl(this.ctx, SUBJECTS.desk(this.desktopId), this.desktopId, frame);
  }

  private deviceClosed(code: number): void {
    if (this.closed) return;
    this.toDesktop({ type: LINK_FRAME.close, connectionId: this.id, code: deviceCloseCode(code), reason: 'The device closed the connection.' });
    this.finish();
  }

  /** A paused socket would not read the device's answering close frame, and the close would hang until ws's timeout. */
  private closeSocket(code: number, reason: string): void {
    if (this.ws.isPaused) this.ws.resume();
    this.ws.close(sendableCloseCode(code), closeReason(reason));
  }

  private finish(): void {
    this.closed = true;
    this.joiner.release();
    this.onClosed(this);
  }
}

/** A message for a device connection: its connection id, and the control frame when it is one. */
export function parseNodeMessage(msg: Msg): { route: ReceivedRoute; connectionId: string; frame: LinkFrame | null } | null {
  const route = readRoute(msg);
  if (!route) return null;
  if (route.kind === 'part') return { route, connectionId: route.connectionId!, frame: null };
  try {
    const frame = decodeLinkFrame(msg.data);
    return frame.type === LINK_FRAME.data || frame.type === LINK_FRAME.open ? null : { route, connectionId: frame.connectionId, frame };
  } catch {
    return null;
  }
}
