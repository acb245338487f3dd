import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../fixtures/waitUntil';
import type { RuntimeProcess } from '../fixtures/runtimeProcess';
import { openPreview, previewedFrame, startPairedPreviewApp } from './previewHarness';

declare global {
  interface Window {
    __bridge?: { caught: number; answered?: number };
  }
}

/**
 * Same-origin with its host page, this page replaces the host page's MessagePort and
 * MessageEvent methods to catch the app's port as `this`, and writes free text to the app's
 * banner with it. Then it makes the host page relay a request, so any hook would fire.
 */
const HOOK_PAGE = `<!doctype html><html><head><title>hook</title></head><body><p>hook</p><script>
window.__bridge = { caught: 0 };
const host = parent;
const post = host.MessagePort.prototype.postMessage;
const forge = (port) => {
  window.__bridge.caught += 1;
  try { post.call(port, { type: 'hbcode.preview.hostFailed', message: 'PWNED by a hooked port' }); } catch {}
  try { post.call(port, { type: 'hbcode.preview.blocked', reason: 'PWNED by a hooked port' }); } catch {}
};
host.MessagePort.prototype.postMessage = function (message, transfer) { forge(this); return post.call(this, message, transfer); };
const data = Object.getOwnPropertyDescriptor(host.MessageEvent.prototype, 'data').get;
Object.defineProperty(host.MessageEvent.prototype, 'data', { configurable: true, get() { if (this.target instanceof host.MessagePort) forge(this.target); return data.call(this); } });
fetch('/calm.html').then((r) => r.text()).then((t) => (window.__bridge.answered = t.length));
</script></body></html>`;

/**
 * Navigates its host page (the app's frame) to a page of its own, which waits for the app's port.
 * `parent.location` is refused by the sandbox, but a link the host page's own document follows is not.
 */
const REPLACE_PAGE = `<!doctype html><html><head><title>replace</title></head><body><script>
addEventListener('load', () => setTimeout(() => {
  const link = parent.document.createElement('a');
  link.href = '/steal.html';
  parent.document.body.appendChild(link);
  link.click();
}, 200));
</script></body></html>`;
const STEAL_PAGE = `<!doctype html><html><head><title>steal</title></head><body><script>
addEventListener('message', (event) => {
  const port = event.ports[0];
  if (!port) return;
  port.postMessage({ type: 'hbcode.preview.hostFailed', message: 'PWNED by a replaced host page' });
  port.postMessage({ type: 'hbcode.preview.hostReady' });
});
</script></body></html>`;
const CALM_PAGE = '<!doctype html><html><head><title>calm</title></head><body><p id="calm">calm</p></body></html>';

describe('SEC-3 PRV-5 a previewed page cannot take the bridge port or write the app banner', () => {
  let close: (() => Promise<void>) | undefined;
  let project: string;
  let runtime: RuntimeProcess;
  let page: Page;

  beforeAll(async () => {
    ({ project, runtime, page, close } = await startPairedPreviewApp({
      'hook.html': HOOK_PAGE,
      'replace.html': REPLACE_PAGE,
      'steal.html': STEAL_PAGE,
      'calm.html': CALM_PAGE,
    }));
  }, 120_000);
  afterAll(async () => {
    await close?.();
  });

  it("SEC-3 hooking the host page's MessagePort and MessageEvent catches no port, and no free text reaches the app", async () => {
    await openPreview(page, runtime, project, 'hook.html');
    const frame = await previewedFrame(page, '/hook.html');
    // The relayed request went through the host page, so a hook on its port would have fired.
    await waitUntil(
      () => frame.evaluate(() => (window.__bridge?.answered ?? 0) > 0),
      'the hooked page got its fetch answered',
    );
    // A ping and its answer cross the host page too (at most a second apart).
    await waitUntil(
      async () =>
        (await page.getByRole('button', { name: 'Reload' }).isEnabled()) &&
        (await frame.evaluate(() => document.readyState === 'complete')),
      'the preview is live',
    );
    // The page again, hooks and all, in a new document (the first is marked, the reload is not).
    await frame.evaluate(() => ((window as { __first?: boolean }).__first = true));
    await page.getByRole('button', { name: 'Reload' }).click();
    let seen: { caught: number; answered?: number } | null = null;
    await waitUntil(async () => {
      const reloaded = await previewedFrame(page, '/hook.html');
      seen = await reloaded
        .evaluate(() =>
          (window as { __first?: boolean }).__first || !window.__bridge?.answered ? null : window.__bridge,
        )
        .catch(() => null);
      return seen !== null;
    }, 'the reloaded page got its fetch answered');
    expect(seen!.caught).toBe(0);
    expect(await page.locator('body').innerText()).not.toContain('PWNED');
    expect(await page.locator('.preview-halted').count()).toBe(0);
  }, 60_000);

  it('SEC-3 a page that replaces its host page gets no port: the app disconnects it with its own words', async () => {
    await openPreview(page, runtime, project, 'replace.html');
    await previewedFrame(page, '/replace.html');
    await page
      .getByRole('alert')
      .filter({ hasText: 'The preview replaced its own host page' })
      .waitFor({ timeout: 30_000 });
    expect(await page.locator('body').innerText()).not.toContain('PWNED');
    expect(await page.locator('iframe.preview-frame').count()).toBe(0);
  }, 60_000);
});
