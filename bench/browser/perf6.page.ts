// Runs in the app's page (bundled by bench/lib/pageBundle.ts): PERF-6 timings and long tasks.

const FIRST_HIGHLIGHTED = '.source-lines [data-line="1"] .source-text span[style]';

const longTasks: number[] = [];
let observing = false;

function startLongTasks(): void {
  longTasks.length = 0;
  if (observing) return;
  observing = true;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longTasks.push(entry.duration);
  }).observe({ type: 'longtask', buffered: false });
}

function takeLongTasks(): { count: number; maxMs: number; all: number[] } {
  const all = longTasks.splice(0);
  return { count: all.length, maxMs: all.length ? Math.max(...all) : 0, all };
}

const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));

async function until(check: () => boolean, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out: ${what}`);
    await nextFrame();
  }
}

const shownFile = () => document.querySelector('.breadcrumbs [aria-current="page"]')?.textContent ?? '';

/** Goes to a folder route and waits for its listing, so the next open starts from nothing. */
async function showFolder(hash: string): Promise<void> {
  location.hash = hash;
  await until(() => document.querySelector('.folder-list') !== null, 'the folder listing');
}

/** Milliseconds from asking for a file to its first line shown highlighted. */
async function timeFirstHighlightedLine(hash: string, name: string): Promise<number> {
  const started = performance.now();
  location.hash = hash;
  await until(
    () => shownFile() === name && document.querySelector(FIRST_HIGHLIGHTED) !== null,
    `${name} shows a highlighted first line`,
  );
  return performance.now() - started;
}

/**
 * Scrolls the source view a few screens per frame until it is at the end of the whole file (the
 * view may start with the file's first lines while the rest is read) and all of it is highlighted.
 */
async function scrollToEndWhileHighlighting(): Promise<number> {
  const view = document.querySelector<HTMLElement>('.source-lines');
  if (!view) throw new Error('no source view');
  const atEnd = () => view.scrollTop + view.clientHeight >= view.scrollHeight - 1;
  await until(() => {
    if (!atEnd()) view.scrollTop += view.clientHeight * 3;
    return atEnd() && view.dataset.highlight === 'highlighted';
  }, 'the whole file is scrolled through and highlighted');
  return view.scrollHeight;
}

Object.assign(globalThis, {
  perf6: { startLongTasks, takeLongTasks, showFolder, timeFirstHighlightedLine, scrollToEndWhileHighlighting },
});
