import fs from 'node:fs';
import type { CDPSession, Frame, Page } from 'playwright-core';

// SEC-9 PRV-4: a previewed page that fetches a big page several times at once, and the app's
// memory while it does; shared by tests/e2e/previewLargeHtml.test.ts (small scale) and
// `npm run bench -- sec9-preview-memory` (full scale).

const MIB = 1024 * 1024;

declare global {
  interface Window {
    fetchBig(count: number, readAll: boolean): Promise<{ bytes: number; tail: string }[]>;
  }
}

/** Fetches big.html `count` times at once; reads each body to the end (keeping only a count and the tail), or only its first piece. */
export const FETCHER_PAGE = `<!doctype html><html><head><title>fetcher</title></head><body><p>fetcher</p><script>
window.fetchBig = (count, readAll) => Promise.all(Array.from({ length: count }, async () => {
  const reader = (await fetch('/big.html')).body.getReader();
  let bytes = 0, tail = new Uint8Array(0);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    const last = value.subarray(Math.max(0, value.byteLength - 4096));
    const joined = new Uint8Array(tail.byteLength + last.byteLength);
    joined.set(tail);
    joined.set(last, tail.byteLength);
    tail = joined.subarray(Math.max(0, joined.byteLength - 4096));
    if (!readAll) return { bytes, tail: '' };
  }
  return { bytes, tail: new TextDecoder().decode(tail) };
}));
</script></body></html>`;

/** A page of about `size` bytes: a head, then line after line of text. */
export function writeBigHtml(file: string, size: number): void {
  const line = '<p>' + 'lorem ipsum '.repeat(80) + '</p>\n';
  const block = Buffer.from(line.repeat(Math.floor(MIB / line.length)));
  const fd = fs.openSync(file, 'w');
  try {
    let written = fs.writeSync(fd, '<!doctype html><html><head><title>big</title></head><body>\n');
    while (written + block.length < size - 20) written += fs.writeSync(fd, block);
    fs.writeSync(fd, '</body></html>\n');
  } finally {
    fs.closeSync(fd);
  }
}

/** The app page's JavaScript heap plus array-buffer storage, in bytes. */
async function appMemory(cdp: CDPSession): Promise<number> {
  const usage = await cdp.send('Runtime.getHeapUsage');
  return usage.usedSize + usage.backingStorageSize;
}

/**
 * Reads big.html `count` times at once through the preview in `frame`, sampling the app page's
 * memory every 50 ms: its baseline after a collection, its peak, and what each fetch read.
 */
export async function parallelFetchMemory(
  page: Page,
  frame: Frame,
  count: number,
): Promise<{ baseline: number; peak: number; answers: { bytes: number; tail: string }[] }> {
  await frame.waitForFunction(() => typeof window.fetchBig === 'function');
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const baseline = await appMemory(cdp);
  let peak = baseline;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await appMemory(cdp));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  try {
    const answers = await frame.evaluate((n) => window.fetchBig(n, true), count);
    return { baseline, peak, answers };
  } finally {
    sampling = false;
    await sampler;
    await cdp.detach();
  }
}
