import crypto from 'node:crypto';
import type { Msg, Subscription } from '@nats-io/transport-node';
import type WebSocket from 'ws';
import {
  decodeLinkFrame,
  encodeLinkFrame,
  LINK_FRAME,
  MAX_CHANNEL_FRAME_BYTES,
  RELAY_CLOSE_CODES,
  type LinkFrame,
  type RelayChallenge,
} from '../lib/relay/relayWire';
import { makeChallenge, verifyRegistration } from './desktopChallenge';
import {
  FrameJoiner,
  publishChannelFrame,
  readRoute,
  REGISTRATION_HEADER,
  routeHeaders,
  SUBJECTS,
  type ReceivedRoute,
} from './natsWire';
import {
  dropSocket,
  isOversize,
  OVER_BUDGET_REASON,
  ROUTED_LINK_READ_BYTES,
  sendCounted,
  setReadLimit,
} from './nodeBudget';
import type { LocalClientEnd, LocalDesktopEnd } from './localJoin';
import { closeReason, publishControl, type RelayContext } from './relayContext';

/** A device connection opened to this desktop, as the desktop's node sees it. */
interface LinkedConnection {
  deviceNode: string;
  /** DATA bytes from the desktop the device's node has not yet written to the device. */
  unackedToDevice: number;
  joiner: FrameJoiner;
  /** Passes a frame from the desktop on to the device's end: over NATS, or by a call when it is on this node (RLY-8). */
  toDevice(frame: LinkFrame): void;
}

/** `<time base36>-<random hex>`: of two registrations of one desktop, the later one wins. */
function newRegistration(): string {
  return `${Date.now().toString(36)}-${crypto.randomBytes(6).toString('hex')}`;
}

function isLater(a: string, b: string): boolean {
  const [timeA = '', randomA = ''] = a.split('-');
  const [timeB = '', randomB = ''] = b.split('-');
  const ta = parseInt(timeA, 36);
  const tb = parseInt(timeB, 36);
  return ta !== tb ? ta > tb : randomA > randomB;
}

export interface DesktopLinkHooks {
  /** The desktop proved its id: the node replaces any link of that id it holds. */
  registered(link: DesktopLink): void;
  closed(link: DesktopLink): void;
}

/**
 * One desktop's link to this node (RLY-1, RLY-4): the challenge, then link frames between the
 * desktop and the nodes holding its devices' sockets. Until the desktop proved its id, frames may
 * have only a few KiB. The desktop may address only connections opened to it, and may have at
 * most a window of un-ACKed bytes on each. The node pings the link; one that answers nothing for
 * a ping interval is dropped and its devices, on any node, are told 4502 at once.
 */
export class DesktopLink implements LocalDesktopEnd {
  desktopId: string | null = null;
  /** The desktop heard it is linked: connections may be opened on the link from now on. */
  ready = false;
  readonly registration = newRegistration();
  readonly connections = new Map<string, LinkedConnection>();
  private readonly challenge: RelayChallenge;
  private readonly subscriptions: Subscription[] = [];
  private readonly registerTimer: NodeJS.Timeout;
  private readonly pingTimer: NodeJS.Timeout;
  /** Anything came from the desktop (a pong, a frame, part of one) since the last ping. */
  private heard = true;
  private closed = false;

  constructor(
    private readonly ctx: RelayContext,
    private readonly ws: WebSocket,
    private readonly hooks: DesktopLinkHooks,
  ) {
    this.challenge = makeChallenge(ctx.publicUrl);
    ws.send(JSON.stringify(this.challenge));
    this.registerTimer = setTimeout(() => {
      ctx.log.refused('challenge_timeout');
      this.close(RELAY_CLOSE_CODES.unauthorized, 'No answer to the challenge.');
    }, ctx.registerTimeoutMs);
    this.pingTimer = setInterval(() => this.ping(), ctx.linkPingMs);
    this.pingTimer.unref();
    ws.on('message', (data: Buffer, isBinary) => this.onMessage(data, isBinary));
    ws.on('close', () => this.cleanUp());
    ws.on('error', (error) => {
      if (isOversize(error)) this.ctx.log.refused('too_large', { desktop: this.desktopId ?? undefined, code: 1009 });
      dropSocket(ws);
    });
  }

  /** Bytes arrived on the link's socket: it is alive, whatever they are. */
  noteTraffic(): void {
    this.heard = true;
  }

  /** Closes the link; its device connections are told the desktop is gone. */
  close(code: number, reason: string): void {
    if (this.ws.readyState === this.ws.OPEN || this.ws.readyState === this.ws.CONNECTING)
      this.ws.close(code, closeReason(reason));
    this.cleanUp();
  }

  /** Connections whose device's node went silent are closed towards the desktop. */
  sweep(): void {
    for (const [connectionId, connection] of this.connections) {
      if (this.ctx.liveness.isAlive(connection.deviceNode)) continue;
      this.forget(connectionId);
      this.sendToDesktop({
        type: LINK_FRAME.close,
        connectionId,
        code: RELAY_CLOSE_CODES.goingAway,
        reason: 'The device’s relay node went away.',
      });
    }
  }

  /** Nothing from the desktop since the last ping (no pong, no bytes): the link is dead, however quiet its TCP is. */
  private ping(): void {
    if (this.closed) return;
    if (!this.heard) {
      this.ctx.log.info('desktop link silent', {
        desktop: this.desktopId ?? undefined,
        code: RELAY_CLOSE_CODES.desktopGone,
      });
      this.ws.terminate();
      this.cleanUp();
      return;
    }
    this.heard = false;
    if (this.ws.readyState === this.ws.OPEN) this.ws.ping();
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (this.closed) return;
    if (this.desktopId === null) {
      const desktopId = isBinary ? null : verifyRegistration(data.toString('utf8'), this.challenge);
      if (!desktopId) {
        this.ctx.log.refused('challenge_failed', { bytes: data.length });
        this.close(RELAY_CLOSE_CODES.unauthorized, 'The registration does not prove this desktop id.');
        return;
      }
      clearTimeout(this.registerTimer);
      this.desktopId = desktopId;
      // Proven: link frames of any allowed size from now on.
      setReadLimit(this.ws, ROUTED_LINK_READ_BYTES);
      void this.register(desktopId);
      return;
    }
    if (!isBinary) {
      this.ctx.log.refused('malformed_link_frame', { desktop: this.desktopId, bytes: data.length });
      return;
    }
    let frame: LinkFrame;
    try {
      frame = decodeLinkFrame(data);
    } catch {
      this.ctx.log.refused(data.length > MAX_CHANNEL_FRAME_BYTES ? 'too_large' : 'malformed_link_frame', {
        desktop: this.desktopId,
        bytes: data.length,
      });
      return;
    }
    this.fromDesktop(this.desktopId, frame);
  }

  private async register(desktopId: string): Promise<void> {
    this.hooks.registered(this);
    const { nc } = this.ctx;
    this.subscriptions.push(
      nc.subscribe(SUBJECTS.ctl(desktopId), {
        callback: (error, msg) => {
          if (!error) this.onTakeover(msg);
        },
      }),
      nc.subscribe(SUBJECTS.desk(desktopId), {
        callback: (error, msg) => {
          if (!error) this.fromNats(desktopId, msg);
        },
      }),
    );
    nc.publish(SUBJECTS.ctl(desktopId), undefined, {
      headers: routeHeaders({ from: this.ctx.nodeId, desktopId }, 'frame', {
        [REGISTRATION_HEADER]: this.registration,
      }),
    });
    try {
      // The subscriptions are in place at the NATS server before the desktop hears it is linked.
      await nc.flush();
    } catch {
      this.close(RELAY_CLOSE_CODES.goingAway, 'The relay node lost its routing.');
      return;
    }
    if (this.closed) return;
    this.ws.send(JSON.stringify({ type: 'registered' }));
    this.ready = true;
    this.ctx.log.info('desktop linked', { desktop: desktopId });
  }

  private onTakeover(msg: Msg): void {
    const other = msg.headers?.get(REGISTRATION_HEADER) ?? '';
    if (other === this.registration || !isLater(other, this.registration)) return;
    this.ctx.log.info('desktop registered elsewhere', {
      desktop: this.desktopId ?? undefined,
      code: RELAY_CLOSE_CODES.replaced,
    });
    this.close(RELAY_CLOSE_CODES.replaced, 'This desktop registered again.');
  }

  /** A frame from the desktop: only for connections opened to it, within each one's window. */
  private fromDesktop(desktopId: string, frame: LinkFrame): void {
    const connection = this.connections.get(frame.connectionId);
    if (!connection) {
      this.ctx.log.refused('foreign_connection', { desktop: desktopId, conn: frame.connectionId });
      return;
    }
    switch (frame.type) {
      case LINK_FRAME.data:
        connection.unackedToDevice += frame.payload.length;
        if (connection.unackedToDevice > this.ctx.windowBytes) {
          this.ctx.log.refused('window_exceeded', {
            desktop: desktopId,
            conn: frame.connectionId,
            bytes: connection.unackedToDevice,
          });
          this.forget(frame.connectionId);
          const close = {
            type: LINK_FRAME.close,
            connectionId: frame.connectionId,
            code: RELAY_CLOSE_CODES.notReading,
            reason: 'The desktop sent past its window.',
          } as const;
          connection.toDevice(close);
          this.sendToDesktop(close);
          return;
        }
        connection.toDevice(frame);
        return;
      case LINK_FRAME.close:
        this.forget(frame.connectionId);
        connection.toDevice(frame);
        return;
      case LINK_FRAME.ack:
      case LINK_FRAME.end:
        connection.toDevice(frame);
        return;
      case LINK_FRAME.stream:
        this.ctx.log.refused('malformed_link_frame', { desktop: desktopId, conn: frame.connectionId });
        return;
    }
  }

  /** A message for this desktop from a device's node. */
  private fromNats(desktopId: string, msg: Msg): void {
    if (this.closed) return;
    const route = readRoute(msg);
    if (!route || route.desktopId !== desktopId) {
      this.ctx.log.refused('malformed_nats_message', { desktop: desktopId, bytes: msg.data.length });
      return;
    }
    this.ctx.liveness.heard(route.from);
    if (route.kind === 'part') {
      this.partFromDevice(route, route.connectionId!, msg.data);
      return;
    }
    let frame: LinkFrame;
    try {
      frame = decodeLinkFrame(msg.data);
    } catch {
      this.ctx.log.refused('malformed_nats_message', { desktop: desktopId, node: route.from });
      return;
    }
    if (frame.type === LINK_FRAME.stream) {
      if (this.connections.has(frame.connectionId)) return;
      this.connections.set(frame.connectionId, {
        deviceNode: route.from,
        unackedToDevice: 0,
        joiner: new FrameJoiner(this.ctx.budget),
        toDevice: this.natsToDevice(desktopId, route.from),
      });
      this.sendToDesktop(frame);
      msg.respond(undefined, {
        headers: routeHeaders({ from: this.ctx.nodeId, desktopId }, 'frame', {
          [REGISTRATION_HEADER]: this.registration,
        }),
      });
      return;
    }
    const connection = this.connections.get(frame.connectionId);
    if (!connection || connection.deviceNode !== route.from) {
      this.ctx.log.refused('foreign_node', { desktop: desktopId, conn: frame.connectionId, node: route.from });
      return;
    }
    this.controlFromDevice(connection, frame);
  }

  /** CLOSE, ACK or END from a connection's device, however it came. */
  private controlFromDevice(connection: LinkedConnection, frame: LinkFrame): void {
    if (frame.type === LINK_FRAME.close) {
      this.forget(frame.connectionId);
      this.sendToDesktop(frame);
    } else if (frame.type === LINK_FRAME.ack) {
      connection.unackedToDevice = Math.max(0, connection.unackedToDevice - frame.bytes);
      this.sendToDesktop(frame);
    } else if (frame.type === LINK_FRAME.end) {
      this.sendToDesktop(frame);
    }
  }

  /** A connection's frames for a device on another node go over NATS, channel data in parts. */
  private natsToDevice(desktopId: string, deviceNode: string): (frame: LinkFrame) => void {
    const subject = SUBJECTS.node(deviceNode);
    return (frame) => {
      if (frame.type === LINK_FRAME.data)
        publishChannelFrame(
          this.ctx.nc,
          subject,
          { from: this.ctx.nodeId, desktopId },
          frame.connectionId,
          frame.payload,
        );
      else publishControl(this.ctx, subject, desktopId, frame);
    };
  }

  /** RLY-8: a client on this node opens its connection on the link directly; its frames never cross NATS. */
  joinLocal(client: LocalClientEnd): void {
    this.connections.set(client.id, {
      deviceNode: this.ctx.nodeId,
      unackedToDevice: 0,
      joiner: new FrameJoiner(this.ctx.budget),
      toDevice: (frame) => client.fromLocalDesktop(frame),
    });
    this.sendToDesktop({ type: LINK_FRAME.stream, connectionId: client.id });
  }

  /** RLY-8: a frame from a client joined on this node, checked as one from NATS is. */
  fromLocalClient(connectionId: string, frame: LinkFrame): void {
    const connection = this.connections.get(connectionId);
    if (this.closed || !connection || frame.connectionId !== connectionId) return;
    if (frame.type !== LINK_FRAME.data) {
      this.controlFromDevice(connection, frame);
      return;
    }
    if (!this.ctx.budget.fits(frame.payload.length)) this.overBudget(this.desktopId!, connectionId, connection);
    else this.sendToDesktop(frame);
  }

  private partFromDevice(route: ReceivedRoute, connectionId: string, part: Uint8Array): void {
    const connection = this.connections.get(connectionId);
    if (!connection || connection.deviceNode !== route.from) {
      this.ctx.log.refused('foreign_node', { desktop: route.desktopId, conn: connectionId, node: route.from });
      return;
    }
    const whole = connection.joiner.add(part, route.more);
    if (whole === 'too_large') this.ctx.log.refused('too_large', { desktop: route.desktopId, conn: connectionId });
    else if (whole === 'over_budget' || (whole && !this.ctx.budget.fits(whole.length)))
      this.overBudget(route.desktopId, connectionId, connection);
    else if (whole) this.sendToDesktop({ type: LINK_FRAME.data, connectionId, payload: whole });
  }

  /** A device's frame would take the node past its budget: that connection ends, on both sides; the link goes on. */
  private overBudget(desktopId: string, connectionId: string, connection: LinkedConnection): void {
    this.ctx.log.refused('over_budget', {
      desktop: desktopId,
      conn: connectionId,
      bytes: this.ctx.budget.heldBytes,
      code: RELAY_CLOSE_CODES.tryAgainLater,
    });
    this.forget(connectionId);
    const close = {
      type: LINK_FRAME.close,
      connectionId,
      code: RELAY_CLOSE_CODES.tryAgainLater,
      reason: OVER_BUDGET_REASON,
    } as const;
    connection.toDevice(close);
    this.sendToDesktop(close);
  }

  /** The connection ended: a frame of it still being joined is let go. */
  private forget(connectionId: string): void {
    this.connections.get(connectionId)?.joiner.release();
    this.connections.delete(connectionId);
  }

  private sendToDesktop(frame: LinkFrame): void {
    if (this.ws.readyState === this.ws.OPEN) sendCounted(this.ws, this.ctx.budget, encodeLinkFrame(frame));
  }

  private cleanUp(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.registerTimer);
    clearInterval(this.pingTimer);
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.ready = false;
    if (this.desktopId) {
      for (const [connectionId, connection] of [...this.connections]) {
        connection.toDevice({
          type: LINK_FRAME.close,
          connectionId,
          code: RELAY_CLOSE_CODES.desktopGone,
          reason: 'The desktop’s link to the relay went away.',
        });
      }
      this.ctx.log.info('desktop unlinked', { desktop: this.desktopId, connections: this.connections.size });
    }
    for (const connection of this.connections.values()) connection.joiner.release();
    this.connections.clear();
    this.hooks.closed(this);
  }
}
