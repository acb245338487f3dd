import { HTML_OPEN, HTML_READY } from '../../protocol/previewBridge';

/**
 * PRV-4: the script appended after a previewed document's end. A link click is not followed by
 * the frame: it becomes `hbcode.html.open` to the app, which decides (PRV-6). Links to any scheme
 * but the preview origin and http(s) (`javascript:`, `data:`, `file:`, …) do nothing at all.
 * Clicks the page handles itself (`preventDefault`, as client-side routers do) are left alone,
 * and so are jumps within the same page.
 */
export function navigationScript(appOrigin: string): string {
  return `(() => {
  const app = ${JSON.stringify(appOrigin)};
  const post = (type, href) => { try { window.top.postMessage({ type, href }, app); } catch {} };
  document.addEventListener('click', (event) => {
    if (event.defaultPrevented || !(event.target instanceof Element)) return;
    const link = event.target.closest('a[href], area[href]');
    if (!link) return;
    let url;
    try { url = new URL(link.href, location.href); } catch { event.preventDefault(); return; }
    const here = new URL(location.href);
    if (url.origin === here.origin && url.pathname === here.pathname && url.search === here.search && url.hash) return;
    event.preventDefault();
    if (url.origin === here.origin || url.protocol === 'http:' || url.protocol === 'https:') post(${JSON.stringify(HTML_OPEN)}, url.href);
  });
  post(${JSON.stringify(HTML_READY)}, location.href);
})();`;
}
