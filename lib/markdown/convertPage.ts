import type TurndownService from 'turndown';
import { ConvertOptionsSchema, type ConvertedPage, type ConvertOptions, type PageView } from './convertedPage';
import { articleTitle } from './articleTitle';
import { extractArticle } from './extractArticle';
import { markdownService, removeNonContent } from './markdownService';
import { tooComplexReason } from './markupShape';
import { pageText } from './pageText';
import {
  baseAddress,
  makeAddressesAbsolute,
  parsePageDocument,
  pinBaseAddress,
  type MarkupElement,
} from './pageDocument';
import { titleHeader } from './titleHeader';

/** An article shorter than this many characters of text may be what extraction left of a page… */
const SHORT_ARTICLE_CHARS = 250;
/** …and it is too little when the page around it holds this many times more text (MD-3). */
const FULL_PAGE_TEXT_FACTOR = 4;

/**
 * One HTML page as Markdown (MD-1…MD-3): the article Readability extracts, or the whole page when
 * extraction fails or keeps too little, under a title header. A page nested too deep or with too
 * many elements is never parsed into a tree: its text is shown, with the reason (SEC-9). Pure: the
 * same function runs in the reader's Web Worker, in the command line and in the benchmark, on
 * linkedom everywhere.
 */
export function convertPage(html: string, url: string, options: ConvertOptions = {}): ConvertedPage {
  const { view, bodyOnly, textOnly } = ConvertOptionsSchema.parse(options);
  if (textOnly) return textOnlyPage(html, url, bodyOnly, 'Showing the text of this page only.');
  const tooComplex = tooComplexReason(html);
  if (tooComplex)
    return textOnlyPage(
      html,
      url,
      bodyOnly,
      `This page is too complex to extract an article from: ${tooComplex}. Showing its text only.`,
    );
  const document = parsePageDocument(html);
  const base = baseAddress(document, url);
  const sourceUrl = url;
  pinBaseAddress(document, base);
  const pageTitle = document.title.replace(/\s+/g, ' ').trim();
  const pageTextLength = view === 'auto' ? textLength(document.body) : 0;

  const article = view === 'fullPage' ? null : extractArticle(document);
  const useArticle = article !== null && (view === 'article' || articleKeepsEnough(article.textLength, pageTextLength));
  let root: MarkupElement | null;
  let title = pageTitle;
  if (useArticle) {
    root = article.content;
    const own = articleTitle(root, article.title ?? pageTitle, article.siteName);
    title = own.title;
    // The header shows the article's own heading: the body does not repeat it.
    if (!bodyOnly) own.heading?.remove();
  } else {
    // Readability changed the document it read: the full page comes from a fresh parse.
    const fresh = article || view !== 'fullPage' ? parsePageDocument(html) : document;
    pinBaseAddress(fresh, base);
    root = fresh.body ?? fresh.documentElement;
  }
  removeNonContent(root);
  makeAddressesAbsolute(root, base);
  const body = tidyMarkdown(markdownService().turndown(root as unknown as TurndownService.Node));
  const details = {
    title: title || pageTitle,
    byline: useArticle ? article.byline : null,
    siteName: article?.siteName ?? null,
    publishedTime: useArticle ? article.publishedTime : null,
    sourceUrl,
  };
  const shown: PageView = useArticle ? 'article' : 'fullPage';
  return {
    markdown: bodyOnly ? body : titleHeader(details) + body,
    view: shown,
    articleFound: article !== null,
    ...details,
    notice: null,
  };
}

/** The page's text under its title header, and why only its text is shown (SEC-9). */
function textOnlyPage(html: string, url: string, bodyOnly: boolean, notice: string): ConvertedPage {
  const text = pageText(html);
  const details = { title: text.title, byline: null, siteName: null, publishedTime: null, sourceUrl: url };
  return {
    markdown: bodyOnly ? text.markdown : titleHeader(details) + text.markdown,
    view: 'fullPage',
    articleFound: false,
    ...details,
    notice,
  };
}

/** Whether an article of this much text is worth showing instead of its page (MD-3). */
export function articleKeepsEnough(articleChars: number, pageChars: number): boolean {
  if (articleChars === 0) return false;
  return articleChars >= SHORT_ARTICLE_CHARS || pageChars < articleChars * FULL_PAGE_TEXT_FACTOR;
}

function textLength(node: MarkupElement | null): number {
  return (node?.textContent ?? '').replace(/\s+/g, ' ').trim().length;
}

/** At most one blank line between blocks, no trailing spaces at the end, one final newline. */
function tidyMarkdown(markdown: string): string {
  return markdown.replace(/\n{3,}/g, '\n\n').trim() + '\n';
}
