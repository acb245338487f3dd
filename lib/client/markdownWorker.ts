import { wrap, type Remote } from 'comlink';
import {
  ConvertedPageSchema,
  type ConvertedPage,
  type ConvertOptions,
  type MarkdownWorkerApi,
} from '../markdown/convertedPage';

/** A conversion that failed in the worker, rebuilt on this side with a stable code. */
export class MarkdownConversionError extends Error {
  override readonly name = 'MarkdownConversionError';
  constructor(
    message: string,
    readonly code: 'conversion_failed' | 'conversion_timeout' = 'conversion_failed',
  ) {
    super(message);
  }
}

/**
 * How long one conversion may take (SEC-9). A hostile page can keep the worker busy for minutes;
 * past this the worker is terminated, so the next page gets a fresh one instead of waiting.
 */
export const CONVERSION_DEADLINE_MS = 15_000;

export interface ConversionLimits {
  deadlineMs: number;
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

/** Stops the worker now, whatever it is doing; the next job starts a new one. */
function stopWorker(): void {
  worker?.terminate();
  worker = null;
  api = null;
}

/** The worker's answer, or a conversion_timeout after the deadline, having terminated the worker. */
function withinDeadline<T>(work: Promise<T>, deadlineMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      stopWorker();
      reject(
        new MarkdownConversionError(
          `Converting this page took longer than ${deadlineMs / 1000} s and was stopped.`,
          'conversion_timeout',
        ),
      );
    }, deadlineMs);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

function stopWhenIdle(): void {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = setTimeout(stopWorker, IDLE_MS);
}

/**
 * Converts a page in the Markdown worker (started lazily); the reply is checked before use. A
 * conversion past its deadline rejects with `conversion_timeout` and the worker is replaced.
 */
export function convertInWorker(
  html: string,
  url: string,
  options: ConvertOptions,
  limits: ConversionLimits = { deadlineMs: CONVERSION_DEADLINE_MS },
): Promise<ConvertedPage> {
  const job = queue.then(async () => {
    if (idleTimer) clearTimeout(idleTimer);
    try {
      const reply: unknown = await withinDeadline(started().convert(html, url, options), limits.deadlineMs);
      const parsed = ConvertedPageSchema.safeParse(reply);
      if (!parsed.success)
        throw new MarkdownConversionError(
          `The Markdown worker answered with an unexpected shape: ${parsed.error.message}`,
        );
      return parsed.data;
    } catch (error) {
      if (error instanceof MarkdownConversionError) throw error;
      throw new MarkdownConversionError(
        `This page could not be converted to Markdown: ${error instanceof Error ? error.message : String(error)}`,
      );
    } finally {
      stopWhenIdle();
    }
  });
  queue = job.catch(() => undefined);
  return job;
}
