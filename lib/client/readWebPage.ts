import type { ConvertedPage, PageView } from '../markdown/convertedPage';
import {
  CONVERSION_DEADLINE_MS,
  convertInWorker,
  MarkdownConversionError,
  type ConversionLimits,
} from './markdownWorker';
import { readSavedReaderPage, saveReaderPage } from './readerCache';
import { RpcError, type RpcClient } from './rpcClient';

export interface ReaderPage {
  url: string;
  finalUrl: string;
  /** The views converted so far (MD-3). */
  views: Partial<Record<PageView, ConvertedPage>>;
  preferred: PageView;
  /** The page's HTML while it came from the runtime in this visit, so another view converts without fetching again. */
  html: string | null;
  /** When this device saved it, if shown from the cache. */
  savedAt: number | null;
  /** Why the runtime could not fetch it again, when a saved copy is shown instead. */
  refreshError?: string | null;
}

function utf8FromBase64(data: string): string {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}

/**
 * A web page as Markdown (MD-1): fetched by the runtime, converted in the worker and saved on this
 * device; when the runtime cannot be asked, what this device saved (PWA-3), or null. Runtime
 * errors other than a closed connection (a bad address, a page too large, …) reach the caller.
 */
export async function readWebPage(client: RpcClient | null, url: string): Promise<ReaderPage | null> {
  if (client) {
    try {
      const fetched = await client.call('web.fetchPage', { url });
      const html = utf8FromBase64(fetched.dataBase64);
      const page = await convertOrShowText(html, fetched.finalUrl);
      const result: ReaderPage = {
        url,
        finalUrl: fetched.finalUrl,
        views: { [page.view]: page },
        preferred: page.view,
        html,
        savedAt: null,
      };
      void saveBothViews(result, html);
      return result;
    } catch (error) {
      if (!(error instanceof RpcError)) throw error;
      if (error.code !== 'closed') {
        // The page could not be fetched now (its site is down, say): what this device saved still reads.
        const saved = await savedPage(url, error.message);
        if (saved) return saved;
        throw error;
      }
    }
  }
  return savedPage(url, null);
}

/** The page as Markdown; when converting it ran out of time, its text only, saying why (SEC-9). */
export async function convertOrShowText(
  html: string,
  url: string,
  limits: ConversionLimits = { deadlineMs: CONVERSION_DEADLINE_MS },
): Promise<ConvertedPage> {
  try {
    return await convertInWorker(html, url, { view: 'auto' }, limits);
  } catch (error) {
    if (!(error instanceof MarkdownConversionError) || error.code !== 'conversion_timeout') throw error;
    const text = await convertInWorker(html, url, { textOnly: true });
    return { ...text, notice: `${error.message} Showing its text only.` };
  }
}

/** What this device saved of `url`, without asking the runtime for anything (SEC-5), or null. */
export function readSavedWebPage(url: string): Promise<ReaderPage | null> {
  return savedPage(url, null);
}

async function savedPage(url: string, refreshError: string | null): Promise<ReaderPage | null> {
  const saved = await readSavedReaderPage(url);
  return saved
    ? {
        url,
        finalUrl: saved.finalUrl,
        views: saved.views,
        preferred: saved.preferred,
        html: null,
        savedAt: saved.savedAt,
        refreshError,
      }
    : null;
}

/** Converts the other view of a page already read in this visit. */
export function convertOtherView(page: ReaderPage, view: PageView): Promise<ConvertedPage> {
  if (page.html === null)
    return Promise.reject(new Error('This view was not saved on this device; open the page again while connected.'));
  return convertInWorker(page.html, page.finalUrl, { view });
}

/** Saves the page at once, then again with its other view, so switching works offline too (MD-3). */
async function saveBothViews(page: ReaderPage, html: string): Promise<void> {
  const save = (views: ReaderPage['views']) =>
    saveReaderPage({ url: page.url, finalUrl: page.finalUrl, views, preferred: page.preferred });
  try {
    await save(page.views);
    const shown = page.views[page.preferred];
    if (!shown?.articleFound) return;
    const other: PageView = page.preferred === 'article' ? 'fullPage' : 'article';
    const converted = await convertInWorker(html, page.finalUrl, { view: other });
    page.views[other] = converted;
    await save(page.views);
  } catch (error) {
    // NOTE: saving is best effort; a full disk must not stop the reader.
    console.warn('Could not save a web page on this device', error);
  }
}
