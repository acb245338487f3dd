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

const appOrigin = document.documentElement.dataset.appOrigin ?? '';
let appPort: MessagePort | null = null;
let page: HTMLIFrameElement | null = null;
let lastGoodPath: string | null = null;

function tellApp(message: HostToApp, transfer: Transferable[] = []): void {
  appPort?.postMessage(message, transfer);
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
  tellApp({ type: 'hbcode.preview.blocked', reason: 'The preview tried to leave its origin.' });
  if (lastGoodPath) frame.src = lastGoodPath;
}

function openPage(path: string): void {
  // A path like `//other.site/x` would leave the origin: only paths of this origin open.
  const url = new URL(path, window.location.origin);
  if (url.origin !== window.location.origin) return;
  path = url.pathname + url.search;
  if (!page) {
    page = document.createElement('iframe');
    page.title = 'Previewed page';
    page.addEventListener('load', () => checkPageStayed(page!));
    page.src = path;
    document.body.appendChild(page);
  } else page.src = path;
}

function receiveFromApp(event: MessageEvent): void {
  const parsed = AppToHostSchema.safeParse(event.data);
  if (!parsed.success) return;
  if (parsed.data.type === 'hbcode.preview.navigate') openPage(parsed.data.path);
  else page?.contentWindow?.location.reload();
}

/** Registers the preview worker and waits until it controls this page, so it sees the page's requests. */
async function startWorker(): Promise<void> {
  await navigator.serviceWorker.register(PREVIEW_WORKER_PATH, { scope: '/', updateViaCache: 'none' });
  await navigator.serviceWorker.ready;
  if (!navigator.serviceWorker.controller) {
    await new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }));
  }
}

// Requests of the previewed page, from our worker: relayed to the app with the worker's reply port.
navigator.serviceWorker.addEventListener('message', (event: MessageEvent) => {
  const port = event.ports[0];
  const parsed = PreviewRequestSchema.safeParse(event.data);
  if (!port) return;
  if (!parsed.success || !appPort) {
    port.close();
    return;
  }
  tellApp(parsed.data, [port]);
});
navigator.serviceWorker.startMessages();

// The app hands over its port once; only the app origin, and only the window that framed us, may.
window.addEventListener('message', (event: MessageEvent) => {
  if (appPort || event.origin !== appOrigin || event.source !== window.parent) return;
  const parsed = PreviewConnectSchema.safeParse(event.data);
  const port = event.ports[0];
  if (!parsed.success || !port) return;
  appPort = port;
  appPort.onmessage = receiveFromApp;
  startWorker().then(
    () => {
      tellApp({ type: 'hbcode.preview.hostReady' });
      openPage(parsed.data.documentPath);
    },
    (error: unknown) => tellApp({ type: 'hbcode.preview.hostFailed', message: String(error instanceof Error ? error.message : error).slice(0, 500) }),
  );
});
