// Runs in a page (bundled by bench/lib/pageBundle.ts) for the term-flood benchmark: the reference,
// the same bytes written straight into a bare xterm.js terminal of the app's options at phone size.
import { Terminal } from '@xterm/xterm';

interface FloodResult {
  elapsedMs: number;
  bytes: number;
}

/** Receives binary frames from `url` and writes each into a fresh xterm.js until `total` bytes are parsed. */
async function bareXtermFlood(url: string, total: number): Promise<FloodResult> {
  const host = document.createElement('div');
  host.style.cssText = 'position:fixed;inset:0;width:390px;height:700px';
  document.body.append(host);
  const terminal = new Terminal({
    fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
    fontSize: 13,
    scrollback: 5000,
  });
  terminal.open(host);
  const socket = new WebSocket(url);
  socket.binaryType = 'arraybuffer';
  const started = performance.now();
  let written = 0;
  await new Promise<void>((resolve, reject) => {
    socket.onerror = () => reject(new Error('the reference socket failed'));
    socket.onmessage = (event) => {
      const bytes = new Uint8Array(event.data as ArrayBuffer);
      terminal.write(bytes, () => {
        written += bytes.byteLength;
        if (written >= total) resolve();
      });
    };
  });
  await new Promise((resolve) => requestAnimationFrame(resolve));
  const elapsedMs = performance.now() - started;
  socket.close();
  terminal.dispose();
  host.remove();
  return { elapsedMs, bytes: written };
}

Object.assign(globalThis, { bareXtermFlood });
