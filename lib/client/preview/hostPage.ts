// The bootstrap script of a preview origin's host page (PRV-5), bundled by
// scripts/build-app.mjs and inlined by the runtime (server/http/previewHostPage.ts).
// First: configures zod before any schema is built (the host page's CSP has no 'unsafe-eval').
import './zodMiniWithoutEval';
import {
  AppToHostSchema,
  PREVIEW_WORKER_PATH,
  PreviewConnectSchema,
  PreviewRequestSchema,
  type HostToApp,
} from '../../protocol/previewBridge';

// SEC-3: the previewed page is same-origin with this page and can replace any prototype method
// here (`MessagePort.prototype.postMessage`, the `data` getter of MessageEvent…) to catch the
// app's port as `this`. Everything that touches a port is bound now, before any previewed
// content runs; bound functions keep calling the originals whatever the page replaces later.
const callBound = Function.prototype.call.bind(Function.prototype.call) as <A extends unknown[], R>(
  fn: (...args: A) => R,
  self: unknown,
  ...args: A
) => R;
const postOnPort = MessagePort.prototype.postMessage as (message: unknown, transfer: Transferable[]) => void;
const eventData = Object.getOwnPropertyDescriptor(MessageEvent.prototype, 'data')!.get! as () => unknown;
const eventPorts = Object.getOwnPropertyDescriptor(MessageEvent.prototype, 'ports')!
  .get! as () => readonly MessagePort[];
const eventOrigin = Object.getOwnPropertyDescriptor(MessageEvent.prototype, 'origin')!.get! as () => string;
const eventSource = Object.getOwnPropertyDescriptor(MessageEvent.prototype, 'source')!
  .get! as () => MessageEventSource | null;
const readData = (event: MessageEvent): unknown => callBound(eventData, event);
const firstPort = (event: MessageEvent): MessagePort | undefined => callBound(eventPorts, event)[0];

const appOrigin = document.documentElement.dataset.appOrigin ?? '';
const parentWindow = window.parent;
let sendToApp: ((message: HostToApp, transfer: Transferable[]) => void) | null = null;
let page: HTMLIFrameElement | null = null;
let lastGoodPath: string | null = null;
let registration: ServiceWorkerRegistration | null = null;

function tellApp(message: HostToApp, transfer: Transferable[] = []): void {
  sendToApp?.(message, transfer);
}

/** The previewed page stays on this origin: a frame that left it (an error page, another site) is put back. */
function checkPageStayed(frame: HTMLIFrameElement): void {
  let path: string | null = null;
  try {
    const location = frame.contentWindow?.location;
    if (location && location.origin === window.location.origin) path = location.pathname + location.search;
  } catch {
    path = null;
  }
  if (path !== null) {
    lastGoodPath = path;
    return;
  }
  tellApp({ type: 'hbcode.preview.blocked', code: 'left_origin' });
  if (lastGoodPath) frame.src = lastGoodPath;
}

function openPage(path: string): void {
  // A path like `//other.site/x` would leave the origin: only paths of this origin open.
  const url = new URL(path, window.location.origin);
  if (url.origin !== window.location.origin) return;
  path = url.pathname + url.search;
  if (!page) {
    const frame = document.createElement('iframe');
    frame.title = 'Previewed page';
    frame.addEventListener('load', () => checkPageStayed(frame));
    frame.src = path;
    page = frame;
    document.body.appendChild(frame);
  } else page.src = path;
}

/** SEC-9: the app leaves; the page stops now, and the worker goes with it. */
function closePreview(): void {
  if (page) page.src = 'about:blank';
  void registration?.unregister();
}

function receiveFromApp(event: MessageEvent): void {
  const parsed = AppToHostSchema.safeParse(readData(event));
  if (!parsed.success) return;
  const message = parsed.data;
  if (message.type === 'hbcode.preview.navigate') openPage(message.path);
  else if (message.type === 'hbcode.preview.reload') page?.contentWindow?.location.reload();
  else if (message.type === 'hbcode.preview.ping') tellApp({ type: 'hbcode.preview.pong', sequence: message.sequence });
  else closePreview();
}

/** Registers the preview worker and waits until it controls this page, so it sees the page's requests. */
async function startWorker(): Promise<void> {
  registration = await navigator.serviceWorker.register(PREVIEW_WORKER_PATH, { scope: '/', updateViaCache: 'none' });
  await navigator.serviceWorker.ready;
  if (!navigator.serviceWorker.controller) {
    await new Promise((resolve) =>
      navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }),
    );
  }
}

// Requests of the previewed page, from our worker: relayed to the app with the worker's reply port.
navigator.serviceWorker.addEventListener('message', (event: MessageEvent) => {
  const port = firstPort(event);
  const parsed = PreviewRequestSchema.safeParse(readData(event));
  if (!port) return;
  if (!parsed.success || !sendToApp) {
    port.close();
    return;
  }
  tellApp(parsed.data, [port]);
});
navigator.serviceWorker.startMessages();

// A preview origin is never used again once its frame goes (each preview has its own): its
// worker would stay registered for good.
addEventListener('pagehide', () => void registration?.unregister());

// The app hands over its port once; only the app origin, and only the window that framed us, may.
window.addEventListener('message', (event: MessageEvent) => {
  if (sendToApp || callBound(eventOrigin, event) !== appOrigin || callBound(eventSource, event) !== parentWindow)
    return;
  const parsed = PreviewConnectSchema.safeParse(readData(event));
  const port = firstPort(event);
  if (!parsed.success || !port) return;
  sendToApp = (message, transfer) => callBound(postOnPort, port, message, transfer);
  port.onmessage = receiveFromApp;
  startWorker().then(
    () => {
      tellApp({ type: 'hbcode.preview.hostReady' });
      openPage(parsed.data.documentPath);
    },
    () => tellApp({ type: 'hbcode.preview.hostFailed', code: 'worker_failed' }),
  );
});
