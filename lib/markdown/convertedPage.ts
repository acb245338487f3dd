import { z } from 'zod';

/**
 * What a conversion answers, shared by the worker, the page and the command line. The page
 * validates the worker's reply with this schema (STYLE: zod at every edge). This file imports no
 * DOM library, so the page can use it without pulling the converter in.
 */
export const PageViewSchema = z.enum(['article', 'fullPage']);
/** `article`: what Readability extracted; `fullPage`: the whole page converted (MD-3). */
export type PageView = z.infer<typeof PageViewSchema>;

export const ConvertOptionsSchema = z.object({
  /** `auto` takes the article, or the full page when extraction fails or keeps too little. */
  view: z.enum(['auto', 'article', 'fullPage']).default('auto'),
  /** Leave out the title header (title, byline, site, published time, source). */
  bodyOnly: z.boolean().default(false),
  /** Only the page's text, without extraction or conversion: after a conversion ran out of time (SEC-9). */
  textOnly: z.boolean().default(false),
});
export type ConvertOptions = z.input<typeof ConvertOptionsSchema>;

export const ConvertedPageSchema = z.object({
  markdown: z.string(),
  /** Which view `markdown` is. */
  view: PageViewSchema,
  /** Whether an article was found, so switching to it makes sense. */
  articleFound: z.boolean(),
  title: z.string(),
  byline: z.string().nullable(),
  siteName: z.string().nullable(),
  publishedTime: z.string().nullable(),
  sourceUrl: z.string(),
  /** Why the page is shown as text only, for the reader to show (SEC-9); null (or absent, in pages saved before) when it converted whole. */
  notice: z.string().nullable().optional(),
});
export type ConvertedPage = z.infer<typeof ConvertedPageSchema>;

/** The worker's interface (workers/markdown.worker.ts), as the page sees it through Comlink. */
export interface MarkdownWorkerApi {
  convert(html: string, url: string, options: ConvertOptions): Promise<ConvertedPage>;
}
