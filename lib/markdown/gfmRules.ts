import type TurndownService from 'turndown';
import { languageFromClassNames } from './codeLanguage';
import { fencedCodeBlock } from './markdownFence';
import { attribute, elementChildren, type MarkupNode } from './markupNode';

/**
 * GitHub Flavored Markdown for Turndown (MD-1): tables, strikethrough, task lists and fenced code
 * with its language. Nothing is ever kept as raw HTML, because the reader renders none (SEC-3): a
 * table without a header row takes its first row as the header.
 */
export function useGfmRules(service: TurndownService): void {
  service.addRule('strikethrough', {
    filter: ['del', 's', 'strike' as 's'],
    replacement: (content) => (content.trim() ? `~~${content}~~` : content),
  });

  service.addRule('taskListItemCheckbox', {
    filter: (node) => {
      const input = node as unknown as MarkupNode;
      return (
        input.nodeName === 'INPUT' && attribute(input, 'type')?.toLowerCase() === 'checkbox' && insideListItem(input)
      );
    },
    replacement: (_content, node) => (attribute(node as unknown as MarkupNode, 'checked') !== null ? '[x] ' : '[ ] '),
  });

  service.addRule('fencedCodeWithLanguage', {
    filter: (node) => node.nodeName === 'PRE',
    replacement: (_content, node) => {
      const pre = node as unknown as MarkupNode;
      const code = elementChildren(pre).find((child) => child.nodeName === 'CODE') ?? null;
      const language = languageFromClassNames(
        attribute(code, 'class'),
        attribute(pre, 'class'),
        attribute(pre.parentNode, 'class'),
        attribute(pre.parentNode?.parentNode, 'class'),
      );
      return fencedCodeBlock(codeText(pre), language);
    },
  });

  service.addRule('tableCell', {
    filter: ['th', 'td'],
    replacement: (content, node) => {
      const cell = node as unknown as MarkupNode;
      const table = enclosingTable(cell);
      if (!table || isLayoutTable(table)) return `\n\n${content}\n\n`;
      const span = Math.min(Number(attribute(cell, 'colspan')) || 1, 50);
      return tableCell(content) + ' |'.repeat(span - 1);
    },
  });

  service.addRule('tableRow', {
    filter: 'tr',
    replacement: (content, node) => {
      const row = node as unknown as MarkupNode;
      const table = enclosingTable(row);
      if (!table || isLayoutTable(table)) return `\n\n${content}\n\n`;
      const line = `|${content}\n`;
      if (firstRowOf(table) !== row) return line;
      const columns = columnCount(row);
      return line + '|' + ' --- |'.repeat(columns) + '\n';
    },
  });

  service.addRule('table', {
    filter: 'table',
    // Rows end up separated by blank lines (each row is a block); a GFM table needs them adjacent.
    replacement: (content) => `\n\n${content.replace(/\|\n{2,}(?=\|)/g, '|\n')}\n\n`,
  });

  // Table sections only group rows; their rows carry the Markdown.
  service.addRule('tableSection', {
    filter: ['thead', 'tbody', 'tfoot'],
    replacement: (content) => content,
  });

  service.addRule('tableCaption', {
    filter: 'caption',
    replacement: (content) => `\n\n${content.trim()}\n\n`,
  });
}

function insideListItem(node: MarkupNode): boolean {
  for (let parent = node.parentNode, depth = 0; parent && depth < 3; parent = parent.parentNode, depth++) {
    if (parent.nodeName === 'LI') return true;
  }
  return false;
}

/** The code as text; `<br>` inside highlighted code is a line break, not nothing. */
function codeText(node: MarkupNode): string {
  let text = '';
  for (const child of Array.from(node.childNodes)) {
    if (child.nodeName === 'BR') text += '\n';
    else if (child.nodeType === 3) text += child.textContent ?? '';
    else if (child.nodeType === 1) text += codeText(child);
  }
  return text;
}

function tableCell(content: string): string {
  // A cell is one line of Markdown: block breaks become spaces, pipes are escaped.
  const oneLine = content
    .replace(/\s*\n+\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .trim();
  return ` ${oneLine} |`;
}

function enclosingTable(inside: MarkupNode): MarkupNode | null {
  let node = inside.parentNode;
  while (node && node.nodeName !== 'TABLE') node = node.parentNode;
  return node;
}

function rowsOf(table: MarkupNode): MarkupNode[] {
  const rows: MarkupNode[] = [];
  for (const child of elementChildren(table)) {
    if (child.nodeName === 'TR') rows.push(child);
    else if (['THEAD', 'TBODY', 'TFOOT'].includes(child.nodeName))
      rows.push(...elementChildren(child).filter((c) => c.nodeName === 'TR'));
  }
  return rows;
}

function firstRowOf(table: MarkupNode): MarkupNode | undefined {
  return rowsOf(table)[0];
}

function columnCount(row: MarkupNode): number {
  return elementChildren(row)
    .filter((cell) => cell.nodeName === 'TD' || cell.nodeName === 'TH')
    .reduce((sum, cell) => sum + Math.min(Number(attribute(cell, 'colspan')) || 1, 50), 0);
}

const layoutTables = new WeakMap<MarkupNode, boolean>();

/** A one-column table, or one that holds another table, lays out a page; its content reads as blocks. */
function isLayoutTable(table: MarkupNode): boolean {
  let known = layoutTables.get(table);
  if (known === undefined) layoutTables.set(table, (known = decideLayoutTable(table)));
  return known;
}

function decideLayoutTable(table: MarkupNode): boolean {
  const rows = rowsOf(table);
  if (rows.length === 0) return true;
  if (rows.every((row) => columnCount(row) <= 1)) return true;
  return rows.some((row) => elementChildren(row).some((cell) => hasDescendant(cell, 'TABLE')));
}

function hasDescendant(node: MarkupNode, name: string): boolean {
  return elementChildren(node).some((child) => child.nodeName === name || hasDescendant(child, name));
}
