import type { ConvertedPage, PageView } from '../markdown/convertedPage';

/** One web page as this device saved it for the reader (MD-1, PWA-3). */
export interface ReaderPageRecord {
  /** The address asked for (the route's `url`). */
  url: string;
  /** Where the page was after redirects. */
  finalUrl: string;
  /** The views converted so far; the reader switches between them offline too (MD-3). */
  views: Partial<Record<PageView, ConvertedPage>>;
  /** The view `auto` chose. */
  preferred: PageView;
  /** Bytes of Markdown held, counted in the cache's running total. */
  byteLength: number;
  savedAt: number;
  lastUsed: number;
}
