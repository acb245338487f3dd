import TurndownService from 'turndown';
import { useGfmRules } from './gfmRules';
import type { MarkupElement } from './pageDocument';

/** Elements that never carry reading content; Turndown would otherwise print their text. */
export const NOT_CONTENT = [
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'object',
  'embed',
  'canvas',
  'svg',
  'button',
  'select',
  'textarea',
  'head',
  'title',
  'meta',
  'link',
  'source',
  'track',
  'wbr',
  'area',
  'param',
] as const;

/**
 * Removes what never carries reading content before Turndown runs. NOTE: removing them with a
 * Turndown rule instead leaves the whitespace around them uncollapsed, which Markdown then reads
 * as an indented code block.
 */
export function removeNonContent(root: MarkupElement): void {
  for (const element of Array.from(root.querySelectorAll(NOT_CONTENT.join(',')))) element.remove();
}

let service: TurndownService | null = null;

/** One Turndown service with the GFM rules, built once and reused for every page (it keeps no page state). */
export function markdownService(): TurndownService {
  if (service) return service;
  service = new TurndownService({
    headingStyle: 'atx',
    hr: '---',
    bulletListMarker: '-',
    codeBlockStyle: 'fenced',
    emDelimiter: '_',
    strongDelimiter: '**',
    linkStyle: 'inlined',
  });
  useGfmRules(service);
  // CommonMark also starts an ordered list with "1)", which Turndown leaves as it is: the number would vanish.
  const escape = service.escape.bind(service);
  service.escape = (text: string) => escape(text).replace(/^(\s*\d+)\)(?=\s)/gm, '$1\\)');
  return service;
}
