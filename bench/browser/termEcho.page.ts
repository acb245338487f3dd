// Runs in a page (bundled by bench/lib/pageBundle.ts) for the term-echo-phone benchmark: times one
// key from its keydown in the page until the element showing its echo has changed and the next
// frame has begun (requestAnimationFrame after the DOM mutation), and holds the reference, a
// one-byte WebSocket echo written into a bare span.

interface Pending {
  keyDownAt: number | null;
  done: Promise<number>;
}

let pending: Pending | null = null;

addEventListener(
  'keydown',
  () => {
    if (pending && pending.keyDownAt === null) pending.keyDownAt = performance.now();
  },
  { capture: true },
);

const textOf = (selector: string) =>
  (document.querySelector(selector)?.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd();

/** Arms the timer for the next key: done once `selector`'s text differs from now and ends with `key`. */
function armEcho(selector: string, key: string): void {
  const target = document.querySelector(selector);
  if (!target) throw new Error(`no ${selector} in the page`);
  const before = textOf(selector);
  const state: Pending = { keyDownAt: null, done: Promise.resolve(0) };
  state.done = new Promise<number>((resolve) => {
    const observer = new MutationObserver(() => {
      const now = textOf(selector);
      if (now === before || !now.endsWith(key)) return;
      observer.disconnect();
      requestAnimationFrame(() => resolve(performance.now() - (state.keyDownAt ?? Number.NaN)));
    });
    observer.observe(target, { childList: true, subtree: true, characterData: true });
  });
  pending = state;
}

/** The armed key's time from keydown to the frame after its echo is in the DOM. */
async function echoDrawn(): Promise<number> {
  if (!pending) throw new Error('no key armed');
  const ms = await pending.done;
  pending = null;
  return ms;
}

/** The reference: an input whose keys go as one byte each to a WebSocket echo, the reply appended to a bare span. */
async function openReferenceEcho(url: string): Promise<void> {
  const box = document.createElement('div');
  box.style.cssText = 'position:fixed;left:0;bottom:0;z-index:99999;background:#fff;color:#000;font:13px monospace';
  const input = document.createElement('input');
  input.id = 'bench-echo-input';
  const span = document.createElement('span');
  span.id = 'bench-echo-span';
  box.append(input, span);
  document.body.append(box);
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error('the reference socket failed'));
  });
  let replies = 0;
  input.addEventListener('keydown', (event) => {
    if (event.key.length === 1) socket.send(event.key);
    event.preventDefault();
  });
  socket.onmessage = (event) => {
    span.textContent = `${++replies}${String(event.data)}`;
  };
}

Object.assign(globalThis, { armEcho, echoDrawn, openReferenceEcho, termEchoText: textOf });
