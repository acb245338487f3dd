import {
  AppToHostSchema,
  HostToAppSchema,
  HtmlMessageSchema,
  PREVIEW_CONNECT,
  type AppToHost,
  type HostToApp,
} from '../../protocol/previewBridge';
import type { ChunkHeader, ReadChunk } from '../verifiedChunks';
import { decideHtmlMessage, type HtmlMessageAction } from './htmlMessages';
import { navigationScript } from './navigationScript';
import { answerPreviewRequest, PastEndError, ResourceMissingError } from './resourceResponder';
import { readAppTheme } from './appTheme';
import { PreviewHeartbeat } from './previewHeartbeat';
import { RelayLimiter } from './relayLimiter';

/**
 * Why a preview stopped and must be started again (SEC-9, PRV-5): `stuck` its page stopped
 * answering, `crashed` its process died (out of memory, say), `host_replaced` something else
 * loaded in its frame, `worker_failed` its service worker would not start.
 */
export type PreviewHaltReason = 'stuck' | 'crashed' | 'host_replaced' | 'worker_failed';

/** One read of `files.readHtmlPreviewResource`: a chunk, 404, or past the end with the size. */
export type ReadPreviewResource = (
  path: string,
  offset: number,
) => Promise<
  { status: 404 } | { status: 200; header: ChunkHeader; data: Uint8Array } | { status: 'past_end'; size: number }
>;

export interface PreviewTarget {
  origin: string;
  /** `/`, or `/p-<id>/` on a shared origin (ORG-3). */
  pathPrefix: string;
  documentPath: string;
}

export interface PreviewBridgeEvents {
  onHostReady(): void;
  onHalted(reason: PreviewHaltReason): void;
  /** The previewed page asked for something (PRV-6); already checked for frame and origin. */
  onAction(action: Exclude<HtmlMessageAction, { kind: 'ignore' }>): void;
}

/** `requestPath` without a shared origin's `/p-<id>` prefix (`pathPrefix` `/` leaves it whole); null when outside it. */
export function pathUnderPrefix(requestPath: string, pathPrefix: string): string | null {
  if (pathPrefix === '/') return requestPath;
  return requestPath.startsWith(pathPrefix) ? requestPath.slice(pathPrefix.length - 1) : null;
}

/**
 * The app's side of one preview (PRV-5, PRV-6). It hands the host page (in `frame`, on the
 * preview origin) a MessagePort, answers every request the preview's service worker relays over
 * it from the runtime, and listens for `hbcode.html.*` messages from the previewed page only.
 * SEC-9: it pings the host page and reports a stuck or crashed preview, answers a bounded number
 * of requests at a time, and on `dispose` fails every request still open.
 */
export class PreviewBridge {
  private port: MessagePort | null = null;
  private connected = false;
  private halted = false;
  private readonly relays = new RelayLimiter();
  private readonly heartbeat = new PreviewHeartbeat({
    ping: (sequence) => this.sendToHost({ type: 'hbcode.preview.ping', sequence }),
    pagesInFrame: () => this.frame.contentWindow?.length ?? 0,
    onStopped: (reason) => this.halt(reason),
  });
  private readonly onWindowMessage = (event: MessageEvent) => this.receiveHtmlMessage(event);

  constructor(
    private readonly frame: HTMLIFrameElement,
    private readonly target: PreviewTarget,
    private readonly readResource: ReadPreviewResource,
    private readonly events: PreviewBridgeEvents,
  ) {
    window.addEventListener('message', this.onWindowMessage);
  }

  /**
   * Call when the host frame has loaded: the port goes only to the preview origin, and only
   * once. NOTE: a second load means the frame's document was replaced (a previewed page can
   * navigate its host page to one of its own), and that document must not get the port.
   */
  connect(): void {
    const host = this.frame.contentWindow;
    if (!host || this.halted) return;
    if (this.connected) return this.halt('host_replaced');
    this.connected = true;
    const channel = new MessageChannel();
    this.port = channel.port1;
    channel.port1.onmessage = (event: MessageEvent) => this.receiveHostMessage(event);
    host.postMessage({ type: PREVIEW_CONNECT, documentPath: this.target.documentPath }, this.target.origin, [
      channel.port2,
    ]);
  }

  navigate(path: string): void {
    this.sendToHost({ type: 'hbcode.preview.navigate', path });
  }

  reload(): void {
    this.sendToHost({ type: 'hbcode.preview.reload' });
  }

  /** Leaves the preview: the host page blanks its page and unregisters its worker; open requests fail. */
  dispose(): void {
    window.removeEventListener('message', this.onWindowMessage);
    this.heartbeat.stop();
    this.relays.close();
    this.sendToHost({ type: 'hbcode.preview.close' });
    this.port?.close();
    this.port = null;
  }

  private halt(reason: PreviewHaltReason): void {
    if (this.halted) return;
    this.halted = true;
    this.dispose();
    this.events.onHalted(reason);
  }

  private sendToHost(message: AppToHost): void {
    this.port?.postMessage(AppToHostSchema.parse(message));
  }

  private receiveHostMessage(event: MessageEvent): void {
    const parsed = HostToAppSchema.safeParse(event.data);
    if (!parsed.success) return;
    const message: HostToApp = parsed.data;
    switch (message.type) {
      case 'hbcode.preview.hostReady':
        this.heartbeat.start();
        return this.events.onHostReady();
      case 'hbcode.preview.hostFailed':
        return this.halt('worker_failed');
      case 'hbcode.preview.blocked':
        return;
      case 'hbcode.preview.pong':
        return this.heartbeat.answered(message.sequence);
      case 'hbcode.preview.request': {
        const port = event.ports[0];
        if (!port) return;
        const path = this.resourcePath(message.path);
        if (path === null) return answerAtOnce(port, 404);
        const source = {
          read: (resourcePath: string) => this.chunkReader(resourcePath),
          decoration: () => ({ theme: readAppTheme(), navigationScript: navigationScript(location.origin) }),
        };
        const admitted = this.relays.admit(
          () => answerPreviewRequest(message, port, path, source, this.relays.signal),
          () => failAtOnce(port),
        );
        if (!admitted) answerAtOnce(port, 503);
      }
    }
  }

  /** The path the runtime knows: without a shared origin's `/p-<id>` prefix; null when outside it. */
  private resourcePath(requestPath: string): string | null {
    return pathUnderPrefix(requestPath, this.target.pathPrefix);
  }

  private chunkReader(path: string): ReadChunk {
    return async (offset) => {
      const answer = await this.readResource(path, offset);
      if (answer.status === 404) throw new ResourceMissingError();
      if (answer.status === 'past_end') throw new PastEndError(answer.size);
      return { header: answer.header, data: answer.data };
    };
  }

  /** PRV-6: only the previewed page itself (the host page's inner frame) on the preview origin is heard. */
  private receiveHtmlMessage(event: MessageEvent): void {
    if (event.origin !== this.target.origin) return;
    const page = this.frame.contentWindow?.frames[0];
    if (!page || event.source !== page) return;
    const parsed = HtmlMessageSchema.safeParse(event.data);
    if (!parsed.success) return;
    const action = decideHtmlMessage(parsed.data, this.target);
    if (action.kind !== 'ignore') this.events.onAction(action);
  }
}

function answerAtOnce(port: MessagePort, status: 404 | 503): void {
  port.postMessage({ type: 'head', status, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  port.postMessage({ type: 'end' });
  port.close();
}

function failAtOnce(port: MessagePort): void {
  port.postMessage({ type: 'fail', code: 'closed' });
  port.close();
}
