import type { WebSocket } from 'ws';
import { encodeLinkFrame, LINK_FRAME, type LinkFrame } from '../../lib/relay/relayWire';

/**
 * Channel data is written to the link while its socket holds less than this unwritten; the rest
 * waits in each channel's own queue, so the one link socket's buffer stays bounded (about this
 * plus one frame) however many channels are busy (RLY-4).
 */
export const LINK_HIGH_WATER_BYTES = 4 * 1024 * 1024;

/** Something with data waiting for room on the link. */
export interface LinkWaiter {
  pump(): void;
}

/** What a channel needs of the link. */
export interface LinkSender {
  hasRoom(): boolean;
  sendControl(frame: Exclude<LinkFrame, { type: typeof LINK_FRAME.data }>): void;
  /** One whole DATA link frame (header written); `written` runs once the link no longer needs its bytes. */
  sendData(frame: Uint8Array, written: () => void): void;
  waitForRoom(waiter: LinkWaiter): void;
  forget(waiter: LinkWaiter): void;
}

/** Writes link frames to the relay: control frames at once, channel data only while there is room. */
export class LinkWriter implements LinkSender {
  private readonly waiting = new Set<LinkWaiter>();
  private pumping = false;

  constructor(private readonly ws: WebSocket) {}

  get bufferedAmount(): number {
    return this.ws.bufferedAmount;
  }

  hasRoom(): boolean {
    return this.ws.readyState === this.ws.OPEN && this.ws.bufferedAmount < LINK_HIGH_WATER_BYTES;
  }

  /** OPEN never goes this way; ACK and CLOSE are small and never wait behind data. */
  sendControl(frame: Exclude<LinkFrame, { type: typeof LINK_FRAME.data }>): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(encodeLinkFrame(frame));
  }

  /** The caller checked `hasRoom`; once `ws` wrote the frame, its buffer is free and waiters get their turn. */
  sendData(frame: Uint8Array, written: () => void): void {
    this.ws.send(frame, { binary: true }, () => {
      written();
      this.drained();
    });
  }

  /** `waiter.pump()` runs when the link has room again. */
  waitForRoom(waiter: LinkWaiter): void {
    this.waiting.add(waiter);
  }

  forget(waiter: LinkWaiter): void {
    this.waiting.delete(waiter);
  }

  private drained(): void {
    if (this.pumping) return;
    this.pumping = true;
    try {
      // Round robin: each waiter is taken off before it pumps and puts itself back if still blocked.
      for (const waiter of [...this.waiting]) {
        if (!this.hasRoom()) break;
        this.waiting.delete(waiter);
        waiter.pump();
      }
    } finally {
      this.pumping = false;
    }
  }
}
