import { ChannelCipher } from '../../lib/relay/channelCipher';
import type { StaticKeyPair } from '../../lib/relay/noise';
import { LINK_FRAME, type LinkFrame } from '../../lib/relay/relayWire';
import { CLOSE_CODES } from '../../lib/protocol/closeCodes';
import type { DeviceAuth, Identity } from '../auth/tokens';
import type { Logger } from '../runtime/log';
import type { ChannelConnection } from '../rpc/socketServer';
import { answerHandshake, ReplayedHandshakeError } from './channelHandshake';
import type { HandshakeReplays } from './handshakeReplays';
import { ChannelSocket } from './channelSocket';
import { LinkStream } from './linkStream';
import { FrameBufferPool } from './frameBufferPool';
import { nodeFrameAead } from './nodeFrameAead';
import type { LinkSender } from './linkWriter';

/** Connections between OPEN and the end of their handshake, at once; more are refused (SEC-9's cap on waiting sockets). */
const MAX_HANDSHAKING = 64;
/**
 * TLS passthrough streams open at once (RLY-6): a browser opens a few per origin; past this a
 * relay (or a crowd through it) is refused rather than have the desktop hold TLS state for all.
 */
export const MAX_STREAMS = 256;
/** A device that opened a connection has this long to send handshake message 1 (RPC-2's deadline). */
const HANDSHAKE_TIMEOUT_MS = 15_000;

const HANDSHAKE_FAILED = 'The channel handshake failed: this is not the key of this desktop, or the message was damaged.';
const HANDSHAKE_REPLAYED = 'The channel handshake was a copy of one answered before.';

export interface ChannelDesk {
  desktopId: string;
  noiseKeys: StaticKeyPair;
  auth: DeviceAuth;
  /** Makes the authenticated RpcConnection of a channel (the socket server's `acceptChannel`). */
  accept(socket: ChannelSocket, identity: Identity): ChannelConnection;
  /** A frame was dropped: DATA for no connection, a transport frame that did not open, or a replayed handshake. */
  countDropped(): void;
  /** The handshakes answered so far, across the link's reconnects. */
  replays: HandshakeReplays;
  /** How long a channel closed politely waits for its queued answers (RLY-4); the default when absent. */
  closeDrainMs?: number;
  /** Takes a TLS passthrough stream (RLY-6); without it, streams are refused (no certificate for the relay's names). */
  acceptStream?: (stream: LinkStream) => void;
  log: Logger;
}

type Entry = { phase: 'waiting'; timer: NodeJS.Timeout } | { phase: 'answering' } | { phase: 'open'; socket: ChannelSocket } | { phase: 'stream'; stream: LinkStream };

/** The device connections of one registered link (RLY-2, RLY-3): OPEN → handshake → channel, until CLOSE or the link drops. */
export class LinkChannels {
  private readonly entries = new Map<string, Entry>();
  private handshaking = 0;
  private streams = 0;
  /** One AES-GCM for the link's channels, so they share its pool of sealed frames' buffers (RLY-3). */
  private readonly aead = nodeFrameAead({ pool: new FrameBufferPool(), openInPlace: true });

  constructor(
    private readonly writer: LinkSender,
    private readonly desk: ChannelDesk,
  ) {}

  get openChannels(): ChannelSocket[] {
    return [...this.entries.values()].flatMap((entry) => (entry.phase === 'open' ? [entry.socket] : []));
  }

  handle(frame: LinkFrame): void {
    const entry = this.entries.get(frame.connectionId);
    switch (frame.type) {
      case LINK_FRAME.open:
        this.opened(frame.connectionId, entry);
        return;
      case LINK_FRAME.stream:
        this.streamOpened(frame.connectionId, entry);
        return;
      case LINK_FRAME.data:
        if (entry?.phase === 'open') entry.socket.deliver(frame.payload);
        else if (entry?.phase === 'stream') entry.stream.deliver(frame.payload);
        else if (entry?.phase === 'waiting') this.answer(frame.connectionId, entry, frame.payload);
        else this.drop(frame.connectionId, frame.payload.length);
        return;
      case LINK_FRAME.ack:
        if (entry?.phase === 'open') entry.socket.acknowledged(frame.bytes);
        else if (entry?.phase === 'stream') entry.stream.acknowledged(frame.bytes);
        return;
      case LINK_FRAME.end:
        if (entry?.phase === 'stream') entry.stream.remoteEnded();
        return;
      case LINK_FRAME.close:
        this.ended(frame.connectionId, entry);
        return;
    }
  }

  /** The link dropped: every channel of it ends as a closed socket would. */
  dropAll(): void {
    for (const [connectionId, entry] of [...this.entries]) this.ended(connectionId, entry);
  }

  private opened(connectionId: string, entry: Entry | undefined): void {
    if (entry) return;
    if (this.handshaking >= MAX_HANDSHAKING) {
      this.desk.log.warn('refusing a relay connection: too many are waiting to authenticate', { waiting: MAX_HANDSHAKING });
      this.writer.sendControl({ type: LINK_FRAME.close, connectionId, code: CLOSE_CODES.tryAgainLater, reason: 'Too many connections are waiting to authenticate; try again later.' });
      return;
    }
    this.handshaking++;
    const timer = setTimeout(() => this.refuse(connectionId, CLOSE_CODES.authTimeout, 'The channel handshake was not sent in time.'), HANDSHAKE_TIMEOUT_MS);
    timer.unref();
    this.entries.set(connectionId, { phase: 'waiting', timer });
  }

  /** RLY-6: a TLS connection to this desktop's relay names, handed to the runtime's TLS server. */
  private streamOpened(connectionId: string, entry: Entry | undefined): void {
    if (entry) return;
    const accept = this.desk.acceptStream;
    if (!accept) {
      this.writer.sendControl({ type: LINK_FRAME.close, connectionId, code: CLOSE_CODES.tryAgainLater, reason: 'This desktop has no certificate for its relay names.' });
      return;
    }
    if (this.streams >= MAX_STREAMS) {
      this.writer.sendControl({ type: LINK_FRAME.close, connectionId, code: CLOSE_CODES.tryAgainLater, reason: 'Too many connections to this desktop; try again later.' });
      return;
    }
    this.streams++;
    const stream = new LinkStream(connectionId, this.writer, () => {
      this.streams--;
      this.entries.delete(connectionId);
    });
    this.entries.set(connectionId, { phase: 'stream', stream });
    accept(stream);
  }

  private answer(connectionId: string, entry: { timer: NodeJS.Timeout }, message1: Uint8Array): void {
    clearTimeout(entry.timer);
    this.entries.set(connectionId, { phase: 'answering' });
    // Handshake message 1 is taken at once: it is not a request the runtime's backpressure holds.
    this.writer.sendControl({ type: LINK_FRAME.ack, connectionId, bytes: message1.length });
    answerHandshake(message1, this.desk.desktopId, this.desk.noiseKeys, this.desk.auth, this.desk.replays).then(
      (answer) => {
        if (this.entries.get(connectionId)?.phase !== 'answering') return;
        this.handshaking--;
        let connection: ChannelConnection | null = null;
        const socket = new ChannelSocket(connectionId, new ChannelCipher(answer.transport, this.aead), this.writer, {
          receive: (data, isBinary) => void connection?.receive(data, isBinary),
          dropped: () => this.desk.countDropped(),
          ended: () => {
            this.entries.delete(connectionId);
            connection?.detach();
          },
        }, this.desk.closeDrainMs);
        this.entries.set(connectionId, { phase: 'open', socket });
        socket.sendHandshake(answer.message2);
        if (answer.identity) connection = this.desk.accept(socket, answer.identity);
        else socket.close(CLOSE_CODES.unauthorized, answer.refusal ?? 'unauthorized');
      },
      (error: unknown) => {
        if (this.entries.get(connectionId)?.phase !== 'answering') return;
        const replayed = error instanceof ReplayedHandshakeError;
        if (replayed) this.desk.countDropped();
        this.desk.log.warn(replayed ? 'refusing a replayed relay channel handshake' : 'relay channel handshake failed', { connectionId, reason: error instanceof Error ? error.message : String(error) });
        this.refuse(connectionId, CLOSE_CODES.unauthorized, replayed ? HANDSHAKE_REPLAYED : HANDSHAKE_FAILED);
      },
    );
  }

  private refuse(connectionId: string, code: number, reason: string): void {
    this.forgetWaiting(connectionId, this.entries.get(connectionId));
    this.writer.sendControl({ type: LINK_FRAME.close, connectionId, code, reason });
  }

  private ended(connectionId: string, entry: Entry | undefined): void {
    if (entry?.phase === 'open') entry.socket.remoteEnded();
    else if (entry?.phase === 'stream') entry.stream.remoteClosed();
    else this.forgetWaiting(connectionId, entry);
  }

  private forgetWaiting(connectionId: string, entry: Entry | undefined): void {
    if (!entry || entry.phase === 'open' || entry.phase === 'stream') return;
    if (entry.phase === 'waiting') clearTimeout(entry.timer);
    this.handshaking--;
    this.entries.delete(connectionId);
  }

  private drop(connectionId: string, bytes: number): void {
    this.desk.countDropped();
    // Still ACKed: the relay's window for this connection counts the bytes until then.
    if (this.entries.has(connectionId)) this.writer.sendControl({ type: LINK_FRAME.ack, connectionId, bytes });
  }
}
