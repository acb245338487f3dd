import { LINK_FRAME, type LinkFrame } from '../../lib/relay/relayWire';
import { CLOSE_CODES } from '../../lib/protocol/closeCodes';
import type { Logger } from '../runtime/log';
import { LinkStream } from './linkStream';
import type { LinkSender } from './linkWriter';

/**
 * TLS passthrough streams open at once (RLY-6): a browser opens a few per origin; past this a
 * relay (or a crowd through it) is refused rather than have the desktop hold TLS state for all.
 */
export const MAX_STREAMS = 256;

export interface StreamDesk {
  /** Takes a TLS passthrough stream to the desktop's relay names (RLY-6), where its TLS ends. */
  acceptStream(stream: LinkStream): void;
  /** A frame was dropped: DATA for no stream, or a frame a stream does not take. */
  countDropped(): void;
  log: Logger;
}

/** The TLS streams of one registered link (RLY-6): STREAM → DATA both ways → END/CLOSE, until the link drops. */
export class LinkStreams {
  private readonly streams = new Map<string, LinkStream>();

  constructor(
    private readonly writer: LinkSender,
    private readonly desk: StreamDesk,
  ) {}

  get openStreams(): LinkStream[] {
    return [...this.streams.values()];
  }

  handle(frame: LinkFrame): void {
    const stream = this.streams.get(frame.connectionId);
    switch (frame.type) {
      case LINK_FRAME.stream:
        if (!stream) this.opened(frame.connectionId);
        return;
      case LINK_FRAME.data:
        if (stream) stream.deliver(frame.payload);
        else this.desk.countDropped();
        return;
      case LINK_FRAME.ack:
        stream?.acknowledged(frame.bytes);
        return;
      case LINK_FRAME.end:
        stream?.remoteEnded();
        return;
      case LINK_FRAME.close:
        stream?.remoteClosed();
        return;
    }
  }

  /** The link dropped: every stream of it ends as a closed socket would. */
  dropAll(): void {
    for (const stream of [...this.streams.values()]) stream.remoteClosed();
  }

  private opened(connectionId: string): void {
    if (this.streams.size >= MAX_STREAMS) {
      this.writer.sendControl({
        type: LINK_FRAME.close,
        connectionId,
        code: CLOSE_CODES.tryAgainLater,
        reason: 'Too many connections to this desktop; try again later.',
      });
      return;
    }
    const stream = new LinkStream(connectionId, this.writer, () => this.streams.delete(connectionId));
    this.streams.set(connectionId, stream);
    this.desk.acceptStream(stream);
  }
}
