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

/** One read of `files.readHtmlPreviewResource`: a chunk, 404, or past the end with the size. */
export type ReadPreviewResource = (path: string, offset: number) => Promise<{ status: 404 } | { status: 200; header: ChunkHeader; data: Uint8Array } | { status: 'past_end'; size: number }>;

export interface PreviewTarget {
  origin: string;
  /** `/`, or `/p-<id>/` on a shared origin (ORG-3). */
  pathPrefix: string;
  documentPath: string;
}

export interface PreviewBridgeEvents {
  onHostReady(): void;
  onHostFailed(message: string): void;
  /** The previewed page asked for something (PRV-6); already checked for frame and origin. */
  onAction(action: Exclude<HtmlMessageAction, { kind: 'ignore' }>): void;
}

/**
 * The app's side of one preview (PRV-5, PRV-6). It hands the host page (in `frame`, on the
 * preview origin) a MessagePort, answers every request the preview's service worker relays over
 * it from the runtime, and listens for `hbcode.html.*` messages from the previewed page only.
 */
export class PreviewBridge {
  private port: MessagePort | null = null;
  private readonly onWindowMessage = (event: MessageEvent) => this.receiveHtmlMessage(event);

  constructor(
    private readonly frame: HTMLIFrameElement,
    private readonly target: PreviewTarget,
    private readonly readResource: ReadPreviewResource,
    private readonly events: PreviewBridgeEvents,
  ) {
    window.addEventListener('message', this.onWindowMessage);
  }

  /** Call when the host frame has loaded: the port goes only to the preview origin. */
  connect(): void {
    const host = this.frame.contentWindow;
    if (!host) return;
    this.port?.close();
    const channel = new MessageChannel();
    this.port = channel.port1;
    channel.port1.onmessage = (event: MessageEvent) => this.receiveHostMessage(event);
    host.postMessage({ type: PREVIEW_CONNECT, documentPath: this.target.documentPath }, this.target.origin, [channel.port2]);
  }

  navigate(path: string): void {
    this.sendToHost({ type: 'hbcode.preview.navigate', path });
  }

  reload(): void {
    this.sendToHost({ type: 'hbcode.preview.reload' });
  }

  dispose(): void {
    window.removeEventListener('message', this.onWindowMessage);
    this.port?.close();
    this.port = null;
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
        return this.events.onHostReady();
      case 'hbcode.preview.hostFailed':
        return this.events.onHostFailed(message.message);
      case 'hbcode.preview.blocked':
        return;
      case 'hbcode.preview.request': {
        const port = event.ports[0];
        if (!port) return;
        const path = this.resourcePath(message.path);
        if (path === null) {
          port.postMessage({ type: 'head', status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
          port.postMessage({ type: 'end' });
          port.close();
          return;
        }
        void answerPreviewRequest(message, port, path, {
          read: (resourcePath) => this.chunkReader(resourcePath),
          decoration: () => ({ theme: readAppTheme(), navigationScript: navigationScript(location.origin) }),
        });
      }
    }
  }

  /** The path the runtime knows: without a shared origin's `/p-<id>` prefix; null when outside it. */
  private resourcePath(requestPath: string): string | null {
    if (this.target.pathPrefix === '/') return requestPath;
    return requestPath.startsWith(this.target.pathPrefix) ? requestPath.slice(this.target.pathPrefix.length - 1) : null;
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
