import {
  FURNITURE_ELEMENTS,
  FURNITURE_ROLES,
  hasFurnitureName,
  isCreditText,
  isDatelineText,
  isFurnitureText,
  isLeadIn,
  isPromptText,
} from './boilerplateSignals';
import type { MarkupElement } from './pageDocument';

/**
 * A part is only ever removed when it is this small a share of the article's words: a page that
 * wraps its whole article in a `<form>`, or gives the article's container a class such as
 * "has-related", keeps its article.
 */
const MAX_REMOVED_SHARE = 0.3;
/** Link lists may be a larger share: on a short story the related links can outweigh it. */
const MAX_LINK_LIST_SHARE = 0.5;
/** A dateline, a credit or a label is a few words, never a paragraph of the story. */
const SHORT_BLOCK_WORDS = 15;
/** A lead-in ("Related: …") or a prompt ("Like this story? Share it…") with its link or two. */
const LEAD_IN_WORDS = 30;
/** A link item of a list of stories: a headline, mostly or wholly the text of its link. */
const LINK_ITEM_WORDS = 30;
const LINK_ITEM_LINK_SHARE = 0.8;
/** Fewer than this many link items in a row is a link in the story, not a list of stories. */
const MIN_LINK_ITEMS = 2;
/** A heading or label right above a list of stories ("More from UK") goes with it. */
const LABEL_WORDS = 8;

const INLINE = new Set([
  'A',
  'SPAN',
  'STRONG',
  'EM',
  'B',
  'I',
  'U',
  'SMALL',
  'MARK',
  'CITE',
  'Q',
  'SUB',
  'SUP',
  'ABBR',
  'TIME',
  'FONT',
]);

const BLOCKS = 'p, li, h1, h2, h3, h4, h5, h6, div, section, span, center, small, dt, dd, figcaption, header';

/**
 * Removes what Readability leaves of the page's furniture inside the article it extracted (MD-4):
 * navigation, asides, forms and landmarks that are not the article; parts named as sharing,
 * related stories, advertising, bylines, datelines, captions and the like; short blocks that
 * only label, credit, date or prompt; lists of links to other stories. Each rule looks at an
 * element's structure, role, class words or generic wording, never at a site.
 */
export function removeBoilerplate(content: MarkupElement, pageAddress: URL | null = null): void {
  const total = wordCount(content);
  const removable = (element: MarkupElement, share: number) =>
    element !== content && wordCount(element) <= total * share;
  removeFurnitureElements(content, (element) => removable(element, MAX_REMOVED_SHARE));
  removeNamedFurniture(content, (element) => removable(element, MAX_REMOVED_SHARE));
  // Before the short blocks go: their labels ("Related stories") tell a list of stories.
  removeLinkLists(content, (element) => removable(element, MAX_LINK_LIST_SHARE), pageAddress);
  removeShortFurnitureBlocks(content);
  removeLinkParagraphs(content);
}

/**
 * A paragraph that is nothing but a link or two ("SEAN SPICER ELIMINATED FROM …", "Read the
 * full report"): a story's prose links words inside sentences; a paragraph-long link points
 * elsewhere.
 */
export function removeLinkParagraphs(content: MarkupElement): void {
  for (const paragraph of all(content, 'p')) {
    const words = wordCount(paragraph);
    if (words > 0 && words <= LINK_ITEM_WORDS && linkShare(paragraph) >= LINK_ITEM_LINK_SHARE) paragraph.remove();
  }
}

/** nav, aside, form, footer and landmark roles that are not the article; figure captions. */
export function removeFurnitureElements(content: MarkupElement, removable: (element: MarkupElement) => boolean): void {
  const selector = [
    ...FURNITURE_ELEMENTS,
    ...FURNITURE_ROLES.map((role) => `[role="${role}"]`),
    'figcaption',
    '[hidden]',
    '[aria-hidden="true"]',
  ].join(', ');
  for (const element of all(content, selector)) if (removable(element)) element.remove();
}

/** Parts whose class or id names them as furniture (share, related, advert, caption, byline…). */
export function removeNamedFurniture(content: MarkupElement, removable: (element: MarkupElement) => boolean): void {
  for (const element of all(content, '[class], [id]')) {
    if (hasFurnitureName(element) && removable(element)) element.remove();
  }
}

/** Short blocks that only label, credit, date or prompt: "Advertisement", "(Image: Getty)", "Updated …". */
export function removeShortFurnitureBlocks(content: MarkupElement): void {
  for (const block of all(content, BLOCKS)) {
    const text = collapsed(block);
    if (!text) continue;
    const words = text.split(' ').length;
    const furniture =
      isFurnitureText(text) ||
      (words <= SHORT_BLOCK_WORDS && (isCreditText(text) || isDatelineText(text))) ||
      (words <= LEAD_IN_WORDS &&
        (isPromptText(text) || (isLeadIn(text) && (words <= LABEL_WORDS || linkShare(block) >= 0.5))));
    if (furniture) block.remove();
  }
}

/**
 * Runs of sibling blocks that are each a link (and little else), under a label ("More from UK",
 * "Related stories"), made of headlines or thumbnails, or leading to other pages of the page's
 * own site: lists of other stories, removed with their label. One linked line in a row of prose,
 * or a plain list of links elsewhere (sources, bugs fixed), is part of the story.
 */
export function removeLinkLists(
  content: MarkupElement,
  removable: (element: MarkupElement) => boolean,
  pageAddress: URL | null = null,
): void {
  const ownSite = (item: MarkupElement) =>
    pageAddress !== null && linksOf(item).every((link) => sameSite(link.getAttribute('href'), pageAddress));
  for (const parent of [content, ...all(content, '*')]) {
    // Inline links are items of a list only where their parent holds little but links.
    const inlineItems = linkShare(parent) >= LINK_ITEM_LINK_SHARE;
    let run: MarkupElement[] = [];
    const flush = () => {
      if (run.length >= MIN_LINK_ITEMS && run.every(removable)) {
        const wholeParent =
          parent !== content &&
          run.length === elementChildren(parent).filter((child) => wordCount(child) > 0).length &&
          !ownText(parent);
        const label = previousElement(run[0]!);
        const listLabel = wholeParent ? previousElement(parent) : null;
        const labelled = (label && isLabel(label)) || (listLabel && isLabel(listLabel));
        const headlines = run.every(
          (item) => item.querySelectorAll('h1, h2, h3, h4, h5, h6, img').length > 0 || /^H[1-6]$/.test(item.nodeName),
        );
        // Without a label, headlines or links to the site's own pages it may be the story's own
        // list (sources, changes, bugs fixed).
        if (!labelled && !headlines && !run.every(ownSite)) {
          run = [];
          return;
        }
        if (label && isLabel(label)) label.remove();
        for (const item of run) item.remove();
        // A list that was only these links goes whole, with the heading above it.
        if (wholeParent) {
          if (listLabel && isLabel(listLabel)) listLabel.remove();
          parent.remove();
        }
      }
      run = [];
    };
    for (const child of Array.from(parent.childNodes)) {
      // Text between links makes them links in a sentence.
      if (child.nodeType === 3 && /\S/.test(child.textContent ?? '')) flush();
      if (child.nodeType !== 1) continue;
      const element = child as MarkupElement;
      const words = wordCount(element);
      if (words === 0) continue;
      const item =
        (inlineItems || !INLINE.has(element.nodeName)) &&
        words <= LINK_ITEM_WORDS &&
        linkShare(element) >= LINK_ITEM_LINK_SHARE;
      if (item) run.push(element);
      else flush();
    }
    flush();
  }
}

function isLabel(element: MarkupElement): boolean {
  const text = collapsed(element);
  if (!text) return false;
  const heading = /^h[1-6]$/i.test(element.nodeName);
  return isLeadIn(text) || isFurnitureText(text) || (heading && text.split(' ').length <= LABEL_WORDS);
}

function all(root: MarkupElement, selector: string): MarkupElement[] {
  return Array.from(root.querySelectorAll(selector));
}

function elementChildren(element: MarkupElement): MarkupElement[] {
  return Array.from(element.childNodes).filter((child) => child.nodeType === 1) as MarkupElement[];
}

function previousElement(element: MarkupElement): MarkupElement | null {
  const parent = element.parentNode as MarkupElement | null;
  if (!parent) return null;
  const siblings = elementChildren(parent);
  const index = siblings.indexOf(element);
  for (let i = index - 1; i >= 0; i--) if (wordCount(siblings[i]!) > 0) return siblings[i]!;
  return null;
}

function linksOf(element: MarkupElement): MarkupElement[] {
  return element.nodeName === 'A' ? [element] : all(element, 'a[href]');
}

/** Whether a link leads to another page of the page's own site (a story of the same paper). */
function sameSite(href: string | null, page: URL): boolean {
  if (!href) return false;
  try {
    const target = new URL(href, page);
    const site = (host: string) => host.replace(/^www\./, '');
    return site(target.hostname) === site(page.hostname) && target.pathname !== page.pathname;
  } catch {
    return false;
  }
}

/** Text directly inside an element, outside its child elements. */
function ownText(element: MarkupElement): string {
  return Array.from(element.childNodes)
    .filter((child) => child.nodeType === 3)
    .map((child) => child.textContent ?? '')
    .join('')
    .trim();
}

function collapsed(element: MarkupElement): string {
  return (element.textContent ?? '').replace(/\s+/g, ' ').trim();
}

function wordCount(element: MarkupElement): number {
  const text = collapsed(element);
  return text ? text.split(' ').length : 0;
}

/** Share of an element's words that are the text of its links. */
function linkShare(element: MarkupElement): number {
  const words = wordCount(element);
  if (words === 0) return 0;
  const linked =
    all(element, 'a').reduce((sum, link) => sum + wordCount(link), 0) + (element.nodeName === 'A' ? words : 0);
  return Math.min(1, linked / words);
}
