// The reference of the viewer benchmarks: one 256 KiB page of a command's output read over an
// authenticated socket of the page's own and drawn as text, timed in the page.
import type { Page } from 'playwright-core';

/**
 * The reference: one 256 KiB page fetched over an authenticated socket of its own (opened before
 * timing, as the app's is) and rendered as text in a fresh element.
 */
export async function openReferenceSocket(
  page: Page,
  sessionId: string,
  runId: string,
  commandId: string,
): Promise<void> {
  await page.evaluate(
    async ({ sessionId, runId, commandId }) => {
      const token = await new Promise<string>((resolve, reject) => {
        const open = indexedDB.open('hbcode');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const get = open.result.transaction('settings').objectStore('settings').get('device');
          get.onsuccess = () => resolve((get.result as { token: string }).token);
          get.onerror = () => reject(get.error);
        };
      });
      const socket = new WebSocket(`${location.origin.replace('http', 'ws')}/rpc`);
      socket.binaryType = 'arraybuffer';
      await new Promise((resolve, reject) => {
        socket.onopen = resolve;
        socket.onerror = reject;
      });
      let nextId = 1;
      const waiting = new Map<number, (data: MessageEvent['data']) => void>();
      socket.onmessage = (event) => {
        const data = event.data as string | ArrayBuffer;
        let id: number;
        if (typeof data === 'string') id = (JSON.parse(data) as { id: number }).id;
        else {
          const view = new DataView(data);
          const header = JSON.parse(new TextDecoder().decode(new Uint8Array(data, 4, view.getUint32(0)))) as {
            id: number;
          };
          id = header.id;
        }
        waiting.get(id)?.(data);
        waiting.delete(id);
      };
      const call = (method: string, params: unknown) =>
        new Promise<MessageEvent['data']>((resolve) => {
          const id = nextId++;
          waiting.set(id, resolve);
          socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
        });
      await call('auth.hello', { token, protocolVersion: 1 });
      const sink = document.createElement('pre');
      sink.style.cssText =
        'position:fixed;inset:0;overflow:hidden;margin:0;background:#fff;z-index:10;font:14px monospace';
      (window as unknown as { __referencePage: (offset: number) => Promise<number> }).__referencePage = async (
        offset: number,
      ) => {
        const started = performance.now();
        const frame = (await call('run.chatCommandOutputRead', {
          appSessionId: sessionId,
          runId,
          commandId,
          generation: 1,
          offset,
          length: 256 * 1024,
          transfer: 'binary',
        })) as ArrayBuffer;
        const headerLength = new DataView(frame).getUint32(0);
        sink.textContent = new TextDecoder().decode(new Uint8Array(frame, 4 + headerLength));
        document.body.append(sink);
        sink.getBoundingClientRect();
        await new Promise((resolve) => requestAnimationFrame(resolve));
        const elapsed = performance.now() - started;
        sink.remove();
        return elapsed;
      };
    },
    { sessionId, runId, commandId },
  );
}

export const referencePage = (page: Page, offset: number) =>
  page.evaluate(
    (offset) => (window as unknown as { __referencePage: (offset: number) => Promise<number> }).__referencePage(offset),
    offset,
  );
