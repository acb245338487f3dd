/**
 * The agent host's history reads (TL-4): pages of a saved conversation or of one subagent,
 * and one long text of a saved item, all through the Claude Agent SDK (getSessionMessages with
 * offset and limit, listSubagents, getSubagentMessages). Runs inside the host process only.
 */
import type { AgentItem } from '../../../../lib/protocol/rows';
import type { HostEvent, HostRequest } from './hostProtocol';
import { itemFieldText } from '../../sessions/itemRows';
import {
  decodeCursor,
  encodeCursor,
  HISTORY_LOOKAHEAD,
  HISTORY_LOOKBACK,
  inlineEntry,
  mapHistoryPage,
  mapWholeHistory,
} from './claudeHistory';

interface ReadOptions {
  dir: string;
  limit?: number;
  offset?: number;
}

export interface ClaudeHistorySdk {
  getSessionMessages(sessionId: string, options: ReadOptions & { includeSystemMessages?: boolean }): Promise<unknown[]>;
  getSubagentMessages(sessionId: string, agentId: string, options: ReadOptions): Promise<unknown[]>;
  listSubagents(sessionId: string, options: { dir: string }): Promise<string[]>;
}

type Fetch = (offset: number, limit: number | undefined) => Promise<unknown[]>;

function window(offset: number, limit: number | undefined): ReadOptions & { offset: number } {
  return limit === undefined ? { dir: '', offset } : { dir: '', offset, limit };
}

/** The subagent whose messages answer the Task/Agent call `toolUseId`, found through the SDK. */
async function subagentOf(
  sdk: ClaudeHistorySdk,
  sessionId: string,
  dir: string,
  toolUseId: string,
): Promise<string | null> {
  for (const agentId of await sdk.listSubagents(sessionId, { dir })) {
    const [first] = await sdk.getSubagentMessages(sessionId, agentId, { dir, limit: 1 });
    if ((first as { parent_tool_use_id?: unknown } | undefined)?.parent_tool_use_id === toolUseId) return agentId;
  }
  return null;
}

/** How to read the messages of one timeline; null when the subagent is not saved. */
async function sourceOf(
  sdk: ClaudeHistorySdk,
  request: { cwd: string; nativeSessionId: string; parentItemId: string | null },
): Promise<Fetch | null> {
  const dir = request.cwd;
  const id = request.nativeSessionId;
  // System messages count too, so compaction boundaries are rows (TL-1) and offsets stay one list.
  if (request.parentItemId === null)
    return (offset, limit) =>
      sdk.getSessionMessages(id, { ...window(offset, limit), dir, includeSystemMessages: true });
  const agentId = await subagentOf(sdk, id, dir, request.parentItemId);
  if (agentId === null) return null;
  return (offset, limit) => sdk.getSubagentMessages(id, agentId, { ...window(offset, limit), dir });
}

/**
 * Every item of the subagent that answered the Task/Agent call `toolUseId`, as its saved pages
 * show them, in order; none when it is not saved (TL-3).
 */
export async function savedSubagentItems(
  sdk: ClaudeHistorySdk,
  request: { cwd: string; nativeSessionId: string },
  toolUseId: string,
): Promise<AgentItem[]> {
  const fetch = await sourceOf(sdk, { ...request, parentItemId: toolUseId });
  return fetch ? [...mapWholeHistory(await fetch(0, undefined), toolUseId).values()] : [];
}

/**
 * One page (TL-4): the newest `limit` messages, or the `limit` before a `before` cursor, or after
 * an `after` cursor, mapped with some messages of context on either side.
 */
export async function readHistoryPage(
  sdk: ClaudeHistorySdk,
  request: Extract<HostRequest, { type: 'historyPage' }>,
): Promise<HostEvent> {
  const fetch = await sourceOf(sdk, request);
  if (!fetch) return { type: 'history', entries: [], older: null, newer: null };
  const cursor = request.before ?? request.after;
  const offset = cursor === null ? null : decodeCursor(cursor);
  if (cursor !== null && offset === null)
    return { type: 'done', ok: false, error: 'This timeline cursor is not valid.' };
  let start: number;
  let end: number;
  let total: number | null = null;
  if (offset === null) {
    // The newest page needs the length of the list; the SDK gives it only by reading it.
    total = (await fetch(0, undefined)).length;
    end = total;
    start = Math.max(0, end - request.limit);
  } else if (request.before !== null) {
    end = offset;
    start = Math.max(0, end - request.limit);
  } else {
    start = offset;
    end = offset + request.limit;
  }
  const from = Math.max(0, start - HISTORY_LOOKBACK);
  const messages = await fetch(from, end + HISTORY_LOOKAHEAD - from);
  const available = from + messages.length;
  end = Math.min(end, available);
  const page = mapHistoryPage(messages, from, start, end, request.parentItemId);
  const hasNewer = total === null ? available > end : false;
  return {
    type: 'history',
    entries: page.entries.map(inlineEntry),
    older: start > 0 ? encodeCursor(start) : null,
    newer: hasNewer ? encodeCursor(end) : null,
    ...(request.parentItemId === null ? { anchors: page.anchors } : {}),
  };
}

/** One slice of one long text of a saved item; the host reads the timeline whole for it (TL-1). */
export async function readItemText(
  sdk: ClaudeHistorySdk,
  request: Extract<HostRequest, { type: 'itemText' }>,
): Promise<HostEvent> {
  const fetch = await sourceOf(sdk, request);
  const item = fetch ? mapWholeHistory(await fetch(0, undefined), request.parentItemId).get(request.itemId) : undefined;
  const text = item ? itemFieldText(item, request.field) : null;
  if (text === null) return { type: 'missing' };
  return sliceOf(Buffer.from(text, 'utf8'), request);
}

/** One slice of a whole text as the host answers it. */
export function sliceOf(
  bytes: Buffer,
  request: { offset: number; length: number },
): Extract<HostEvent, { type: 'output' }> {
  const slice = bytes.subarray(
    Math.min(request.offset, bytes.length),
    Math.min(request.offset + request.length, bytes.length),
  );
  return { type: 'output', availableBytes: bytes.length, dataBase64: slice.toString('base64') };
}
