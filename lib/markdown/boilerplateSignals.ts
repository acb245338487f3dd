import type { MarkupElement } from './pageDocument';

/**
 * What tells a block of an extracted article apart as page furniture rather than article text
 * (MD-4): its element, its ARIA role, the words its class and id are made of, and the short
 * phrases that label such blocks on news and blog pages in general. Nothing here names a site.
 */

/** Elements that hold the page's furniture wherever they are, never the article's text. */
export const FURNITURE_ELEMENTS = ['nav', 'aside', 'form', 'footer', 'dialog', 'menu'];

/** ARIA roles of landmarks and widgets that are not the article. */
export const FURNITURE_ROLES = [
  'navigation',
  'complementary',
  'contentinfo',
  'search',
  'banner',
  'dialog',
  'alertdialog',
  'menu',
  'menubar',
  'toolbar',
];

/**
 * Words of class names and ids that name furniture: sharing and social buttons, newsletter and
 * subscription boxes, related, recommended, trending and popular stories, advertising, cookie
 * notices, breadcrumbs, bylines, datelines, captions and credits, comments, author bios, text
 * hidden from sight.
 */
const FURNITURE_NAME_WORDS = new Set([
  'share',
  'shares',
  'sharing',
  'social',
  'newsletter',
  'newsletters',
  'signup',
  'subscribe',
  'subscription',
  'related',
  'recommended',
  'recommendations',
  'promo',
  'promotion',
  'advert',
  'adverts',
  'advertisement',
  'advertising',
  'ad',
  'ads',
  'sponsor',
  'sponsored',
  'cookie',
  'cookies',
  'consent',
  'gdpr',
  'breadcrumb',
  'breadcrumbs',
  'byline',
  'dateline',
  'timestamp',
  'caption',
  'captions',
  'credit',
  'credits',
  'copyright',
  'comment',
  'comments',
  'rail',
  'print',
  'trending',
  'popular',
  'outbrain',
  'taboola',
  'popup',
  'modal',
  'paywall',
  'tags',
  'bio',
  'offscreen',
]);
/** Words that make the next one a state of the element rather than its kind. */
// "hidden-print" shows on screen; "hidden-xs" hides on phones only: neither is furniture.
const STATE_WORDS = new Set([
  'no',
  'has',
  'with',
  'without',
  'show',
  'hide',
  'hidden',
  'is',
  'enable',
  'enabled',
  'disable',
  'disabled',
]);
/** Word pairs that name furniture only together. */
const FURNITURE_NAME_PAIRS = [
  'read-more',
  'more-stories',
  'more-from',
  'see-also',
  'also-read',
  'screen-reader',
  'sr-only',
  'visually-hidden',
  'skip-link',
  'off-screen',
  'post-author',
  'author-info',
  'about-author',
  'entry-meta',
  'post-meta',
  'article-meta',
];

/** "articleBody__mediaCaption--wide" → ["article", "body", "media", "caption", "wide"]. */
export function nameWords(value: string): string[] {
  return value
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Whether an element's class or id names it as furniture. */
export function hasFurnitureName(element: MarkupElement): boolean {
  const words = nameWords(`${element.getAttribute('class') ?? ''} ${element.getAttribute('id') ?? ''}`);
  // "no_caption", "has-related": a state of the element, not what it is.
  if (words.some((word, i) => FURNITURE_NAME_WORDS.has(word) && !STATE_WORDS.has(words[i - 1] ?? ''))) return true;
  const joined = `-${words.join('-')}-`;
  return FURNITURE_NAME_PAIRS.some((pair) => joined.includes(`-${pair}-`));
}

/** Whole texts of blocks that are only a label or a widget's leftover. */
const FURNITURE_TEXTS = new Set([
  'advertisement',
  'advert',
  'ad',
  'ads',
  'sponsored',
  'sponsored content',
  'skip to content',
  'skip to main content',
  'this slideshow requires javascript',
  'share',
  'share this',
  'share this article',
  'share this story',
  'comments',
  'comment',
  'post comment',
  'leave a comment',
  'print',
  'email',
  'tweet',
  'close',
  'loading',
  'sign in',
  'log in',
  'subscribe',
  'related',
  'related articles',
  'related stories',
  'related news',
  'more',
  'read more',
  'you may also like',
  'you might also like',
  'recommended',
  'recommended for you',
  'more stories',
  'trending',
  'popular',
  'most popular',
  'most read',
  'don t miss',
  'see more',
  'see also',
  'also read',
  'advertisement continue reading below',
  'story continues below advertisement',
]);

/** A block's text as compared with the phrases: lower case, letters and digits only, single spaces. */
export function phraseOf(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

export function isFurnitureText(text: string): boolean {
  return FURNITURE_TEXTS.has(phraseOf(text));
}

/** How blocks that point the reader elsewhere begin: "Related: …", "READ MORE: …", "More from UK". */
const LEAD_IN =
  /^(related( stories| articles| news| coverage| content)?|read more|read also|see more|see also|also read|also on [\w.]+|more from [\w .]+|more on this|don'?t miss|recommended|you may also like|you might also like|watch|listen|sign up|subscribe)\s*(:|\.{3}|…|\||$)/i;

export function isLeadIn(text: string): boolean {
  return LEAD_IN.test(text.replace(/\s+/g, ' ').trim());
}

/** A caption's credit or label on its own: "(Image: Getty)", "Photo credit: AP", "Image copyright". */
const CREDIT =
  /^\(?\s*(image|photo|picture|pictured|credit|source|illustration|video)s?\s*(credit|copyright|caption|courtesy)?\s*(:|©|$)/i;

export function isCreditText(text: string): boolean {
  return CREDIT.test(text.replace(/\s+/g, ' ').trim());
}

/** A dateline on its own: "Updated Nov 19, 6:55 AM", "First Published: Tuesday, …". */
const DATELINE =
  /^(updated|posted|published|first published|last updated|last modified|modified|created)\b\s*(on|at)?\s*:?/i;

export function isDatelineText(text: string): boolean {
  return DATELINE.test(text.replace(/\s+/g, ' ').trim());
}

/** Prompts to share, follow or subscribe, found anywhere in a short block. */
const PROMPT =
  /\b(share (it|this|this article|this story) (with|on)|like this (story|article)\?|follow (us|\w+) on (twitter|facebook|instagram|youtube|linkedin)|sign up (for|to) (our|the)|subscribe to (our|the)|get (breaking news|our newsletter)|cookies? (to|policy)|we use cookies|uses cookies)\b/i;

export function isPromptText(text: string): boolean {
  return PROMPT.test(text);
}
