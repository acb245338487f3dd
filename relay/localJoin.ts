import type { LinkFrame } from '../lib/relay/relayWire';

/**
 * One hop when it can (RLY-8): a client's connection and its desktop's link on the same node are
 * joined on that node, link frames passing between them as calls instead of NATS messages. Each
 * end keeps the checks it makes when NATS is between them (the windows, the node's budget), so
 * the joined path holds no more than the routed one.
 */

/** The client's end (a passthrough stream) as the desktop's link sees it. */
export interface LocalClientEnd {
  readonly id: string;
  /** A frame from the desktop: DATA, ACK, END or CLOSE. */
  fromLocalDesktop(frame: LinkFrame): void;
}

/** A desktop link on this node, as a client's connection sees it. */
export interface LocalDesktopEnd {
  /** Sends the desktop the STREAM of `client`, whose frames then come through `fromLocalClient`. */
  joinLocal(client: LocalClientEnd): void;
  /** A frame from the client for the desktop: DATA, ACK, END or CLOSE. */
  fromLocalClient(connectionId: string, frame: LinkFrame): void;
}
