import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { PREVIEW_HOST_PAGE_PATH, PREVIEW_WORKER_PATH } from '../../lib/protocol/previewBridge';
import { previewHostPage } from './previewHostPage';

type Send = (res: http.ServerResponse, status: number, headers: Record<string, string>, body?: string) => void;

/**
 * SEC-9: `Origin-Agent-Cluster` puts the preview origin in an agent cluster of its own, and
 * Chromium's site isolation then gives it a process of its own even though it is same-site with
 * the app: a page spinning in `for(;;){}` or allocating until it dies takes only that process.
 * NOTE: measured in Chromium 156 — without it the preview shares the app's renderer and a click
 * on the app never lands while the preview spins; with it the click lands in about 200 ms.
 */
const NO_STORE = { 'cache-control': 'no-store', 'origin-agent-cluster': '?1' };

/**
 * What a preview origin's server answers (PRV-5, ORG-4): the bootstrap host page and the service
 * worker script, nothing else. Every file of the previewed site reaches the page through the
 * worker and the app's authenticated connection, never from here.
 */
export function servePreviewOrigin(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  urlPath: string,
  outDir: string,
  appOrigin: string,
  send: Send,
): void {
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') {
    send(res, 405, { ...NO_STORE, allow: 'GET, HEAD', 'content-type': 'text/plain' }, 'Method not allowed');
    return;
  }
  if (urlPath === PREVIEW_HOST_PAGE_PATH) {
    const page = previewHostPage(outDir, appOrigin);
    if (page) {
      send(
        res,
        200,
        {
          ...NO_STORE,
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': page.contentSecurityPolicy,
        },
        page.html,
      );
      return;
    }
  }
  if (urlPath === PREVIEW_WORKER_PATH) {
    let script: string | null = null;
    try {
      script = fs.readFileSync(path.join(outDir, 'sw.js'), 'utf8');
    } catch {
      // Not built yet: 404 below.
    }
    if (script !== null) {
      send(
        res,
        200,
        { ...NO_STORE, 'content-type': 'text/javascript; charset=utf-8', 'service-worker-allowed': '/' },
        script,
      );
      return;
    }
  }
  send(res, 404, { ...NO_STORE, 'content-type': 'text/plain' }, 'Not found');
}
