import { z } from 'zod';
import type { AgentItem } from '../../../../lib/protocol/rows';
import type { AgentOutputSlice, HistoryEntry, HistoryPage, HistoryPageRequest } from '../agent';
import { notFound } from '../../errors';
import { itemFieldText } from '../../sessions/itemRows';
import { textSlice } from '../textBody';
import { codexItem, subagentThreadId, userMessageText } from './codexItems';
import { AnyItemSchema, UserMessageSchema } from './codexItemSchemas';
import { TurnSchema, type CodexTurn } from './codexNotificationSchemas';
import type { TurnRecord } from './codexTurnRecords';
import { agentErrorItem, turnEndItem, turnErrorItemId, turnPlanItemId } from './codexTurnRows';

export type CodexCall = <T extends z.ZodTypeAny>(method: string, params: unknown, schema: T) => Promise<z.output<T>>;

const ItemEntrySchema = z.object({ turnId: z.string(), item: z.unknown(), startedAtMs: z.number().nullable().optional(), completedAtMs: z.number().nullable().optional() });
type ItemEntry = z.infer<typeof ItemEntrySchema>;
const ItemsPageSchema = z.object({ data: z.array(ItemEntrySchema), nextCursor: z.string().nullable(), backwardsCursor: z.string().nullable().optional() });
const TurnsPageSchema = z.object({ data: z.array(TurnSchema), nextCursor: z.string().nullable() });

/** How far a lookup by item id or turn id pages back before it gives up (bounded loops). */
const MAX_LOOKUP_PAGES = 50;
const LOOKUP_PAGE = 100;

/** Our opaque cursor: Codex's own, with the direction it continues in. */
interface Cursor {
  direction: 'asc' | 'desc';
  codex: string;
  /** A reversed Codex cursor starts at its anchor item again: that item is left out. */
  skip?: string;
}
const CursorSchema = z.object({ direction: z.enum(['asc', 'desc']), codex: z.string(), skip: z.string().optional() });

const itemIdOf = (entry: ItemEntry | undefined) => (entry ? (AnyItemSchema.safeParse(entry.item).data?.id ?? null) : null);

/** A page of items from a cursor, without the anchor a reversed cursor repeats. */
function withoutAnchor(entries: ItemEntry[], cursor: Cursor | null, limit: number): ItemEntry[] {
  const kept = cursor?.skip ? entries.filter((entry) => itemIdOf(entry) !== cursor.skip) : entries;
  return kept.slice(0, limit);
}

function encodeCursor(cursor: Cursor | null): string | null {
  return cursor ? Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url') : null;
}

function decodeCursor(text: string): Cursor {
  try {
    return CursorSchema.parse(JSON.parse(Buffer.from(text, 'base64url').toString('utf8')));
  } catch {
    throw notFound('This timeline cursor is not valid any more. Reload the timeline.');
  }
}

/** A history page request, for the Codex thread (the session's, or a subagent's) that answers it. */
export type ThreadPageRequest = HistoryPageRequest & { threadId: string };

/**
 * The saved Codex timeline, read page by page through `thread/items/list` (TL-4): never whole,
 * cursors wrapped so the app can go either way. Turn ends (status, duration, usage) and the
 * errors turns failed with come from `thread/turns/list` and the app's own usage record.
 */
export class CodexHistory {
  private readonly turns = new Map<string, CodexTurn>();
  private readonly subagentThreads = new Map<string, string>();

  constructor(
    private readonly call: CodexCall,
    private readonly recordOf: (sessionId: string, turnId: string) => TurnRecord,
  ) {}

  async page(request: ThreadPageRequest): Promise<HistoryPage> {
    const cursor = request.before ? decodeCursor(request.before) : request.after ? decodeCursor(request.after) : null;
    const direction = cursor?.direction ?? 'desc';
    const page = await this.call(
      'thread/items/list',
      { threadId: request.threadId, limit: request.limit + (cursor?.skip ? 1 : 0), sortDirection: direction, ...(cursor ? { cursor: cursor.codex } : {}) },
      ItemsPageSchema,
    );
    const inOrder = withoutAnchor(page.data, cursor, request.limit);
    const entries = direction === 'desc' ? [...inOrder].reverse() : inOrder;
    const onward = page.nextCursor ? { direction, codex: page.nextCursor } : null;
    // The reversed cursor's anchor is the page's item nearest to where it points.
    const anchor = itemIdOf(direction === 'desc' ? entries.at(-1) : entries[0]);
    const back =
      page.backwardsCursor && anchor ? { direction: direction === 'desc' ? ('asc' as const) : ('desc' as const), codex: page.backwardsCursor, skip: anchor } : null;
    const older = direction === 'desc' ? onward : back;
    // The newest page has nothing newer yet; the live overlay shows what comes next.
    const newer = direction === 'asc' ? onward : cursor ? back : null;
    const next = await this.entryAfter(request.threadId, newer);
    return { entries: await this.toEntries(request, entries, next), older: encodeCursor(older), newer: encodeCursor(newer) };
  }

  /** The first saved item after a page, to tell whether the page's last turn ended in it. */
  private async entryAfter(threadId: string, newer: Cursor | null): Promise<ItemEntry | null> {
    if (!newer) return null;
    const peek = await this.call('thread/items/list', { threadId, limit: 2, sortDirection: newer.direction, cursor: newer.codex }, ItemsPageSchema);
    return withoutAnchor(peek.data, newer, 1)[0] ?? null;
  }

  private async toEntries(request: ThreadPageRequest, entries: ItemEntry[], next: ItemEntry | null): Promise<HistoryEntry[]> {
    const out: HistoryEntry[] = [];
    for (let i = 0; i < entries.length; i += 1) {
      const entry = entries[i]!;
      const entryOut = this.entryOf(entry, request);
      if (entryOut) out.push(entryOut);
      const following = i + 1 < entries.length ? entries[i + 1]! : next;
      if (following && following.turnId === entry.turnId) continue;
      const turn = await this.turn(request.threadId, entry.turnId);
      if (!turn || turn.status === 'inProgress') continue;
      for (const item of this.turnClosers(turn, request)) out.push({ kind: 'item', item });
    }
    return out;
  }

  /** What closes a saved turn: its last plan, the error it failed with, its end (TL-1). */
  private turnClosers(turn: CodexTurn, request: ThreadPageRequest): AgentItem[] {
    const record = this.recordOf(request.sessionId, turn.id);
    const end = turnEndItem(turn, record.usage, request.parentItemId);
    const closers: AgentItem[] = [];
    if (record.plan) closers.push({ kind: 'plan', itemId: turnPlanItemId(turn.id), parentItemId: request.parentItemId, ...record.plan });
    if (turn.error) closers.push(agentErrorItem(turnErrorItemId(turn.id), turn.error, end.createdAt, request.parentItemId));
    return [...closers, end];
  }

  private entryOf(entry: ItemEntry, request: ThreadPageRequest): HistoryEntry | null {
    const createdAt = entry.startedAtMs ?? entry.completedAtMs ?? 0;
    const head = AnyItemSchema.safeParse(entry.item);
    if (request.parentItemId === null && head.success && head.data.type === 'userMessage') {
      const user = UserMessageSchema.safeParse(entry.item);
      if (user.success) return { kind: 'user', itemId: user.data.id, text: userMessageText(user.data), createdAt, clientId: user.data.clientId ?? null };
    }
    if (request.parentItemId === null && head.success && head.data.type === 'commandExecution' && typeof head.data.command === 'string') {
      return { kind: 'command', itemId: head.data.id, command: head.data.command, createdAt };
    }
    const item = codexItem(entry.item, { cwd: request.cwd, createdAt, parentItemId: request.parentItemId, running: false, subagentTimeline: request.parentItemId !== null });
    return item ? { kind: 'item', item } : null;
  }

  /** A turn's status, duration and error; completed turns never change, so they are kept. */
  private async turn(threadId: string, turnId: string): Promise<CodexTurn | null> {
    const known = this.turns.get(`${threadId}/${turnId}`);
    if (known && known.status !== 'inProgress') return known;
    let cursor: string | null = null;
    for (let pages = 0; pages < MAX_LOOKUP_PAGES; pages += 1) {
      const page: z.output<typeof TurnsPageSchema> = await this.call(
        'thread/turns/list',
        { threadId, limit: LOOKUP_PAGE, sortDirection: 'desc', itemsView: 'notLoaded', ...(cursor ? { cursor } : {}) },
        TurnsPageSchema,
      );
      for (const turn of page.data) this.turns.set(`${threadId}/${turn.id}`, turn);
      if (this.turns.has(`${threadId}/${turnId}`) || !page.nextCursor) break;
      cursor = page.nextCursor;
    }
    return this.turns.get(`${threadId}/${turnId}`) ?? null;
  }

  /** A saved item by its id, newest first, within a bounded number of pages. */
  async findItem(threadId: string, itemId: string): Promise<unknown> {
    let cursor: string | null = null;
    for (let pages = 0; pages < MAX_LOOKUP_PAGES; pages += 1) {
      const page: z.output<typeof ItemsPageSchema> = await this.call(
        'thread/items/list',
        { threadId, limit: LOOKUP_PAGE, sortDirection: 'desc', ...(cursor ? { cursor } : {}) },
        ItemsPageSchema,
      );
      const found = page.data.find((entry) => AnyItemSchema.safeParse(entry.item).data?.id === itemId);
      if (found) return found.item;
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    throw notFound('This item is not in the saved Codex conversation.');
  }

  /** The thread a subagent row's timeline lives in; a spawn never changes its thread, so it is kept. */
  async subagentThread(threadId: string, parentItemId: string): Promise<string> {
    const key = `${threadId}/${parentItemId}`;
    const known = this.subagentThreads.get(key);
    if (known) return known;
    const thread = subagentThreadId(await this.findItem(threadId, parentItemId));
    if (!thread) throw notFound('This item has no subagent timeline.');
    this.subagentThreads.set(key, thread);
    return thread;
  }

  /** A slice of one long text of a saved item (`text`, `input`, `result`, `detail`, `files.<i>.diff`). */
  async itemText(request: { threadId: string; cwd: string; parentItemId: string | null; itemId: string; field: string; offset: number; length: number }): Promise<AgentOutputSlice> {
    const raw = await this.findItem(request.threadId, request.itemId);
    const item = codexItem(raw, { cwd: request.cwd, createdAt: 0, parentItemId: request.parentItemId, running: false, inlineBytes: Infinity, subagentTimeline: request.parentItemId !== null });
    const text = item ? itemFieldText(item, request.field) : null;
    if (text === null) throw notFound(`This item has no text "${request.field}".`);
    return textSlice(text, request.offset, request.length);
  }
}
