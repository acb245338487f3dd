import { wrap, type Remote } from 'comlink';
import { ConvertedPageSchema, type ConvertedPage, type ConvertOptions, type MarkdownWorkerApi } from '../markdown/convertedPage';

/** A conversion that failed in the worker, rebuilt on this side with a stable code. */
export class MarkdownConversionError extends Error {
  override readonly name = 'MarkdownConversionError';
  readonly code = 'conversion_failed';
}

const MARKDOWN_WORKER_PATH = '/workers/markdown.worker.js';

/** The worker stops after this long without a job and starts again on the next one. */
const IDLE_MS = 60_000;

let worker: Worker | null = null;
let api: Remote<MarkdownWorkerApi> | null = null;
let idleTimer: ReturnType<typeof setTimeout> | null = null;
/** One job at a time: each waits for the one before it. */
let queue: Promise<unknown> = Promise.resolve();

function started(): Remote<MarkdownWorkerApi> {
  if (!api) {
    // Bundled by scripts/build-app.mjs from workers/markdown.worker.ts (see there for why not by Next).
    worker = new Worker(new URL(MARKDOWN_WORKER_PATH, location.origin), { type: 'module', name: 'markdown' });
    api = wrap<MarkdownWorkerApi>(worker);
  }
  return api;
}

function stopWhenIdle(): void {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    worker?.terminate();
    worker = null;
    api = null;
  }, IDLE_MS);
}

/** Converts a page in the Markdown worker (started lazily); the reply is checked before use. */
export function convertInWorker(html: string, url: string, options: ConvertOptions): Promise<ConvertedPage> {
  const job = queue.then(async () => {
    if (idleTimer) clearTimeout(idleTimer);
    try {
      const reply: unknown = await started().convert(html, url, options);
      const parsed = ConvertedPageSchema.safeParse(reply);
      if (!parsed.success) throw new MarkdownConversionError(`The Markdown worker answered with an unexpected shape: ${parsed.error.message}`);
      return parsed.data;
    } catch (error) {
      if (error instanceof MarkdownConversionError) throw error;
      throw new MarkdownConversionError(`This page could not be converted to Markdown: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      stopWhenIdle();
    }
  });
  queue = job.catch(() => undefined);
  return job;
}
