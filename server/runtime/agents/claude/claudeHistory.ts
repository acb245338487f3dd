import { z } from 'zod';
import type { AgentItem } from '../../../../lib/protocol/rows';
import type { HistoryEntry } from '../agent';
import { inlineTextBody } from '../itemTextBody';
import { ClaudeItemMapper, type ClaudeMapped } from './claudeItems';
import { parseJsonWith } from '../../../../lib/shared/parseJsonWith';

/**
 * Messages read before a page so a tool_result, a later block of the same API message or a
 * permission answer finds what it continues, and after it so a call on the page gets its result.
 */
export const HISTORY_LOOKBACK = 32;
export const HISTORY_LOOKAHEAD = 64;

const CursorSchema = z.object({ o: z.number().int().nonnegative() });

/** An opaque page cursor: the message offset where a page starts (older) or ends (newer). */
export function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

/** The offset a cursor names, or null when it is not one of ours. */
export function decodeCursor(cursor: string): number | null {
  return parseJsonWith(CursorSchema, Buffer.from(cursor, 'base64url').toString('utf8'))?.o ?? null;
}

function entryOf(mapped: ClaudeMapped): HistoryEntry | null {
  switch (mapped.kind) {
    case 'item':
      return { kind: 'item', item: mapped.item };
    case 'user':
      // The app sends each message with the uuid it keeps in claude_operations (STO-2).
      return {
        kind: 'user',
        itemId: mapped.itemId,
        text: mapped.text,
        createdAt: mapped.createdAt,
        clientId: mapped.itemId,
      };
    case 'command':
      return { kind: 'command', itemId: mapped.itemId, command: mapped.command, createdAt: mapped.createdAt };
    case 'commandResult':
      return null;
  }
}

function entryId(mapped: ClaudeMapped): string {
  return mapped.kind === 'item' ? mapped.item.itemId : mapped.itemId;
}

/**
 * The entries of the messages `[start, end)` of a saved conversation (TL-4), from `messages`
 * read at offset `from` (with context around the page). Each item belongs to the page where it
 * first appears, completed by what follows it (a tool call by its result), so every item is in
 * exactly one page and the pages joined are the whole history in order. Texts stay whole: the
 * caller bounds them.
 */
export function mapHistoryRange(
  messages: unknown[],
  from: number,
  start: number,
  end: number,
  parentItemId: string | null,
): HistoryEntry[] {
  return mapHistoryPage(messages, from, start, end, parentItemId).entries;
}

/** Where a message of a page ends among the page's entries: a turn record follows it there (TL-6). */
export interface MessageAnchor {
  uuid: string;
  index: number;
}

function uuidOf(message: unknown): string | null {
  const uuid = (message as { uuid?: unknown } | null)?.uuid;
  return typeof uuid === 'string' ? uuid : null;
}

/** `mapHistoryRange`, and the anchor of each message of `[start, end)` that has a uuid. */
export function mapHistoryPage(
  messages: unknown[],
  from: number,
  start: number,
  end: number,
  parentItemId: string | null,
): { entries: HistoryEntry[]; anchors: MessageAnchor[] } {
  const mapper = new ClaudeItemMapper({ source: 'saved', parentItemId });
  const entries = new Map<string, HistoryEntry>();
  const elsewhere = new Set<string>();
  const anchors: MessageAnchor[] = [];
  messages.forEach((message, i) => {
    const offset = from + i;
    for (const mapped of mapper.map(message)) {
      const id = entryId(mapped);
      if (elsewhere.has(id)) continue;
      const entry = entryOf(mapped);
      if (!entries.has(id) && (offset < start || offset >= end)) {
        elsewhere.add(id);
        continue;
      }
      if (entry) entries.set(id, entry);
    }
    const uuid = uuidOf(message);
    if (uuid !== null && offset >= start && offset < end) anchors.push({ uuid, index: entries.size });
  });
  return { entries: [...entries.values()], anchors };
}

/** The whole of every item of a saved list, by itemId, for reading one long text (TL-1). */
export function mapWholeHistory(messages: unknown[], parentItemId: string | null): Map<string, AgentItem> {
  const items = new Map<string, AgentItem>();
  for (const entry of mapHistoryRange(messages, 0, 0, messages.length, parentItemId))
    if (entry.kind === 'item') items.set(entry.item.itemId, entry.item);
  return items;
}

/**
 * The item as a page carries it from the host: every long text cut to its inline prefix, and
 * marked so (TL-1); the whole is read by field through `itemText`.
 */
export function inlineItem(item: AgentItem): AgentItem {
  switch (item.kind) {
    case 'toolCall':
      return { ...item, input: inlineTextBody(item.input), result: item.result && inlineTextBody(item.result) };
    case 'subagent':
      return { ...item, result: item.result && inlineTextBody(item.result) };
    case 'fileChange':
      return { ...item, files: item.files.map((file) => ({ ...file, diff: inlineTextBody(file.diff) })) };
    case 'agentError':
      return { ...item, detail: item.detail && inlineTextBody(item.detail) };
    case 'rawItem':
      return { ...item, text: inlineTextBody(item.text) };
    default:
      return item;
  }
}

export function inlineEntry(entry: HistoryEntry): HistoryEntry {
  return entry.kind === 'item' ? { kind: 'item', item: inlineItem(entry.item) } : entry;
}
