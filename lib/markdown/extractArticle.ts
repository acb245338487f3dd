import { Readability } from '@mozilla/readability';
import { removeBoilerplate } from './articleBoilerplate';
import type { MarkupElement, PageDocument } from './pageDocument';

export interface ExtractedArticle {
  content: MarkupElement;
  /** Characters of text the article keeps. */
  textLength: number;
  title: string | null;
  byline: string | null;
  siteName: string | null;
  publishedTime: string | null;
}

type ReadabilityDocument = ConstructorParameters<typeof Readability>[0];

/**
 * The article of a page, found by Readability on our DOM (MD-1, MD-2), or null when it finds
 * none. Readability changes the document it reads: parse again for anything else.
 */
export function extractArticle(document: PageDocument): ExtractedArticle | null {
  const reader = new Readability<MarkupElement>(document as unknown as ReadabilityDocument, {
    // Class names carry code languages (language-x, lang-x); Turndown drops them anyway.
    keepClasses: true,
    // The element itself, not its HTML: serializing and parsing again would double the work.
    serializer: (node) => node as unknown as MarkupElement,
  });
  const article = reader.parse();
  if (!article?.content) return null;
  // Readability keeps some of the page's furniture inside the article; what is left is measured.
  removeBoilerplate(article.content, pageAddress(document));
  const text = (article.content.textContent ?? '').replace(/\s+/g, ' ').trim();
  return {
    content: article.content,
    textLength: text.length,
    title: clean(article.title),
    byline: clean(article.byline),
    siteName: clean(article.siteName),
    publishedTime: clean(article.publishedTime),
  };
}

/** The page's address, which pinBaseAddress wrote into its <base> (links to the same site tell lists of its stories). */
function pageAddress(document: PageDocument): URL | null {
  const href = document.querySelector('base[href]')?.getAttribute('href');
  if (!href) return null;
  try {
    return new URL(href);
  } catch {
    return null;
  }
}

function clean(value: string | null | undefined): string | null {
  const text = value?.replace(/\s+/g, ' ').trim();
  return text ? text : null;
}
