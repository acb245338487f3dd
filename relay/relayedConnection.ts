import type { Msg } from '@nats-io/transport-node';
import {
  encodeLinkFrame,
  LINK_FRAME,
  MAX_CHANNEL_FRAME_BYTES,
  RELAY_CLOSE_CODES,
  type LinkFrame,
} from '../lib/relay/relayWire';
import type { LocalClientEnd, LocalDesktopEnd } from './localJoin';
import { FrameJoiner, publishChannelFrame, readRoute, routeHeaders, SUBJECTS, type ReceivedRoute } from './natsWire';
import { OVER_BUDGET_REASON } from './nodeBudget';
import { publishControl, type RelayContext } from './relayContext';

/**
 * A client's connection on this node, routed to its desktop wherever that desktop's link is
 * (RLY-4): the NATS half of a TLS passthrough stream (PassthroughConnection, RLY-6): the STREAM, the window of
 * bytes sent to the desktop and not yet ACKed (reading from the client pauses at it), ACKs for
 * bytes from the desktop once they are written to the client, and the node's memory budget over
 * frames being joined and bytes being written to the client (1013 for the connection that would
 * break it).
 */
export abstract class RelayedConnection implements LocalClientEnd {
  /** The node holding the desktop's link, once it answered the STREAM. */
  private desktopNode: string | null = null;
  /** The desktop's link when it is on this node: frames go to it by call, not over NATS (RLY-8). */
  private localDesktop: LocalDesktopEnd | null = null;
  private unackedToDesktop = 0;
  /** DATA bytes handed to the client's socket whose write has not completed. */
  private pendingToClient = 0;
  /** Bytes written to the client, not yet ACKed to the desktop (ACKs are sent once per turn of the event loop). */
  private ackDue = 0;
  private ackScheduled = false;
  private readonly joiner: FrameJoiner;
  protected closed = false;

  constructor(
    protected readonly ctx: RelayContext,
    readonly id: string,
    readonly desktopId: string,
    private readonly onClosed: (connection: RelayedConnection) => void,
  ) {
    this.joiner = new FrameJoiner(ctx.budget);
  }

  /** Whether the desktop accepted the STREAM. */
  get routed(): boolean {
    return this.desktopNode !== null;
  }

  /** Writes bytes from the desktop to the client, counted in the node's budget until written; `written` once the socket took them. */
  protected abstract writeToClient(frame: Uint8Array, written: (error?: Error | null) => void): void;
  /** Closes the client's socket after what is queued for it. */
  protected abstract closeClient(): void;
  protected abstract pauseClient(): void;
  protected abstract resumeClient(): void;
  protected abstract get clientPaused(): boolean;
  /** The desktop sent END: its side of the stream is done. */
  protected abstract endFromDesktop(): void;
  /** After `close` for the budget: reads nothing more from the client and lets go of its socket soon. */
  protected abstract dropClient(): void;

  /** Closes the client's socket; `tellDesktop` sends the desktop a CLOSE too. */
  close(code: number, reason: string, tellDesktop: boolean): void {
    if (this.closed) return;
    if (tellDesktop) this.toDesktop({ type: LINK_FRAME.close, connectionId: this.id, code, reason });
    this.finish();
    this.closeClient();
  }

  /** The desktop's node went silent: the connection is gone. */
  sweep(): void {
    if (this.desktopNode !== null && !this.ctx.liveness.isAlive(this.desktopNode)) {
      this.ctx.log.info('desktop node went silent', {
        desktop: this.desktopId,
        conn: this.id,
        node: this.desktopNode,
        code: RELAY_CLOSE_CODES.desktopGone,
      });
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
      else if (whole) this.toClient(whole);
      return;
    }
    this.controlFromDesktop(frame);
  }

  /** RLY-8: a frame from the desktop's link on this node. */
  fromLocalDesktop(frame: LinkFrame): void {
    if (this.closed) return;
    if (frame.type === LINK_FRAME.data) this.toClient(frame.payload);
    else this.controlFromDesktop(frame);
  }

  private controlFromDesktop(frame: LinkFrame): void {
    if (frame.type === LINK_FRAME.close) {
      this.finish();
      this.closeClient();
    } else if (frame.type === LINK_FRAME.ack) {
      this.unackedToDesktop = Math.max(0, this.unackedToDesktop - frame.bytes);
      if (this.clientPaused && this.unackedToDesktop < this.resumeBelow()) this.resumeClient();
    } else if (frame.type === LINK_FRAME.end) {
      this.endFromDesktop();
    }
  }

  /** Asks the desktop's node to open the connection (a STREAM link frame). */
  protected open(): void {
    const local = this.ctx.localDesktop(this.desktopId);
    if (local) {
      // RLY-8: the desktop's link is here; joined at once, no NATS on the way.
      this.localDesktop = local;
      this.desktopNode = this.ctx.nodeId;
      local.joinLocal(this);
      return;
    }
    const request = this.ctx.nc.request(
      SUBJECTS.desk(this.desktopId),
      encodeLinkFrame({ type: LINK_FRAME.stream, connectionId: this.id }),
      {
        timeout: this.ctx.openTimeoutMs,
        headers: routeHeaders({ from: this.ctx.nodeId, desktopId: this.desktopId }, 'frame'),
      },
    );
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
      },
      () => {
        this.ctx.log.refused('desktop_offline', {
          desktop: this.desktopId,
          conn: this.id,
          code: RELAY_CLOSE_CODES.desktopOffline,
        });
        this.close(RELAY_CLOSE_CODES.desktopOffline, 'The desktop is not linked to the relay.', false);
      },
    );
  }

  /** Bytes from the client, for the desktop; reading pauses once a window of them is un-ACKed. */
  protected forwardToDesktop(data: Uint8Array): void {
    // Published even before the STREAM's answer: NATS keeps this node's order on the subject, so the
    // desktop's node has the connection by the time the frame arrives.
    if (this.localDesktop)
      this.localDesktop.fromLocalClient(this.id, { type: LINK_FRAME.data, connectionId: this.id, payload: data });
    else
      publishChannelFrame(
        this.ctx.nc,
        SUBJECTS.desk(this.desktopId),
        { from: this.ctx.nodeId, desktopId: this.desktopId },
        this.id,
        data,
      );
    this.unackedToDesktop += data.length;
    if (this.unackedToDesktop >= this.resumeBelow() && !this.clientPaused) this.pauseClient();
  }

  /** Paused at this many un-ACKed bytes, so one more frame of any allowed size still fits the window. */
  private resumeBelow(): number {
    return Math.max(1, this.ctx.windowBytes - MAX_CHANNEL_FRAME_BYTES);
  }

  private toClient(frame: Uint8Array): void {
    this.pendingToClient += frame.length;
    if (this.pendingToClient > this.ctx.windowBytes) {
      // The desktop's node enforces the window; this bounds the memory here whatever it does.
      this.ctx.log.refused('window_exceeded', { desktop: this.desktopId, conn: this.id, bytes: this.pendingToClient });
      this.close(RELAY_CLOSE_CODES.notReading, 'The desktop sent past its window.', true);
      return;
    }
    if (!this.ctx.budget.fits(frame.length)) {
      this.pendingToClient -= frame.length;
      this.overBudget();
      return;
    }
    this.writeToClient(frame, (error) => {
      this.pendingToClient -= frame.length;
      if (error || this.closed) return;
      this.ackDue += frame.length;
      if (this.ackScheduled) return;
      this.ackScheduled = true;
      setImmediate(() => this.sendAck());
    });
  }

  /** Holding this connection's next frame would take the node past its budget: the connection ends instead. */
  overBudget(): void {
    if (this.closed) return;
    this.ctx.log.refused('over_budget', {
      desktop: this.desktopId,
      conn: this.id,
      bytes: this.ctx.budget.heldBytes,
      code: RELAY_CLOSE_CODES.tryAgainLater,
    });
    this.close(RELAY_CLOSE_CODES.tryAgainLater, OVER_BUDGET_REASON, true);
    this.dropClient();
  }

  private sendAck(): void {
    this.ackScheduled = false;
    if (this.closed || this.ackDue === 0) return;
    this.toDesktop({ type: LINK_FRAME.ack, connectionId: this.id, bytes: this.ackDue });
    this.ackDue = 0;
  }

  protected toDesktop(frame: LinkFrame): void {
    if (this.localDesktop) this.localDesktop.fromLocalClient(this.id, frame);
    else publishControl(this.ctx, SUBJECTS.desk(this.desktopId), this.desktopId, frame);
  }

  /** The client's socket closed by itself: the desktop is told with `code`. */
  protected clientClosed(code: number, reason: string): void {
    if (this.closed) return;
    this.toDesktop({ type: LINK_FRAME.close, connectionId: this.id, code, reason });
    this.finish();
  }

  protected finish(): void {
    this.closed = true;
    this.joiner.release();
    this.onClosed(this);
  }
}
