import type { MarkupElement } from './pageDocument';

/** An article's own heading leads it when no more than this many characters of text come before it. */
const LEADING_TEXT_CHARS = 200;

const collapse = (text: string | null | undefined) => (text ?? '').replace(/\s+/g, ' ').trim();

/**
 * The article's own title (MD-1): its leading heading when it has one (`heading`, for the caller to
 * take out of the body when a header shows it, so it shows once); else the title Readability
 * found (og:title, the document's title), without the site name that pages append or prepend
 * (the header shows the site apart).
 */
export function articleTitle(
  content: MarkupElement,
  foundTitle: string,
  siteName: string | null,
): { title: string; heading: MarkupElement | null } {
  // Readability turns the article's h1 into an h2 (the h1 being the title shown apart).
  const heading = content.querySelectorAll('h1, h2')[0];
  const headingText = collapse(heading?.textContent);
  if (heading && headingText) {
    const textBefore = collapse(content.textContent).indexOf(headingText);
    if (textBefore >= 0 && textBefore <= LEADING_TEXT_CHARS) return { title: headingText, heading };
  }
  return { title: withoutSiteName(collapse(foundTitle), siteName), heading: null };
}

const SEPARATOR = String.raw`\s+[|\-–—·•:]\s+`;
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** "Title | Site", "Site — Title" → "Title"; a title that is only the site name stays. */
export function withoutSiteName(title: string, siteName: string | null): string {
  const site = collapse(siteName);
  if (!site) return title;
  const name = escapeRegExp(site);
  for (const pattern of [new RegExp(`^(.+?)${SEPARATOR}${name}$`, 'i'), new RegExp(`^${name}${SEPARATOR}(.+)$`, 'i')]) {
    const match = pattern.exec(title);
    if (match?.[1]) return match[1].trim();
  }
  return title;
}
