import { Tokenizer } from 'htmlparser2';
import { markdownService, NOT_CONTENT } from './markdownService';

/** Elements that end a paragraph of text, so the text of a page keeps its blocks. */
const BLOCKS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'td',
  'th',
  'tr',
  'ul',
]);
/** Void elements have no end tag, so they never open a skipped region. */
const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
const SKIPPED = new Set<string>(NOT_CONTENT.filter((name) => !VOID.has(name) && name !== 'title'));

export interface PageText {
  title: string;
  /** The page's text as Markdown paragraphs, every character of the page escaped. */
  markdown: string;
}

/**
 * A page's text without building its tree (SEC-9), for pages too complex to extract: one pass of
 * the bare tokenizer, which keeps no stack of open elements, so it stays linear however deep a
 * hostile page nests. Nothing of the page's markup survives; its text is escaped so that it reads
 * as text in Markdown too.
 */
export function pageText(html: string): PageText {
  const paragraphs: string[] = [];
  let current = '';
  let title = '';
  let openName = '';
  let inTitle = false;
  /** Open skipped elements (script, style, svg…): their text is not reading content. */
  let skipped = 0;
  const endParagraph = () => {
    const text = current.replace(/\s+/g, ' ').trim();
    if (text) paragraphs.push(text);
    current = '';
  };
  const addText = (text: string) => {
    if (inTitle) title += text;
    else if (skipped === 0) current += text;
  };
  const nameAt = (start: number, end: number) => html.slice(start, end).toLowerCase();
  const close = (name: string) => {
    if (name === 'title') inTitle = false;
    else if (SKIPPED.has(name)) skipped = Math.max(0, skipped - 1);
    if (BLOCKS.has(name)) endParagraph();
  };
  const tokenizer = new Tokenizer(
    { decodeEntities: true },
    {
      onopentagname(start, end) {
        openName = nameAt(start, end);
        if (openName === 'title') inTitle = true;
        else if (SKIPPED.has(openName)) skipped++;
        if (BLOCKS.has(openName)) endParagraph();
      },
      onselfclosingtag() {
        close(openName);
      },
      onclosetag(start, end) {
        close(nameAt(start, end));
      },
      ontext(start, end) {
        addText(html.slice(start, end));
      },
      ontextentity(codepoint) {
        addText(String.fromCodePoint(codepoint));
      },
      onattribdata() {},
      onattribentity() {},
      onattribend() {},
      onattribname() {},
      oncdata() {},
      oncomment() {},
      ondeclaration() {},
      onend() {},
      onopentagend() {},
      onprocessinginstruction() {},
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  endParagraph();
  const escape = (text: string) => markdownService().escape(text);
  return { title: title.replace(/\s+/g, ' ').trim(), markdown: paragraphs.map(escape).join('\n\n') + '\n' };
}
