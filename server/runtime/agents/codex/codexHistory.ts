import { z } from 'zod';
import type { AgentItem } from '../../../../lib/protocol/rows';
import type { AgentOutputSlice, HistoryEntry, HistoryPage, HistoryPageRequest } from '../agent';
import { notFound } from '../../errors';
import { itemFieldText } from '../../sessions/itemRows';
import { textSlice } from '../textBody';
import { codexItem, subagentThreadId, userMessageText } from './codexItems';
import { AnyItemSchema, UserMessageSchema } from './codexItemSchemas';
import { TurnSchema, type CodexTurn } from './codexNotificationSchemas';
import type { SavedPlan, TurnRecord } from './codexTurnRecords';
import { agentErrorItem, turnEndItem, turnErrorItemId, turnPlanItemId } from './codexTurnRows';
import { parseJsonWith } from '../../../../lib/shared/parseJsonWith';

export type CodexCall = <T extends z.ZodTypeAny>(method: string, params: unknown, schema: T) => Promise<z.output<T>>;

const ItemEntrySchema = z.object({
  turnId: z.string(),
  item: z.unknown(),
  startedAtMs: z.number().nullable().optional(),
  completedAtMs: z.number().nullable().optional(),
});
type ItemEntry = z.infer<typeof ItemEntrySchema>;
const ItemsPageSchema = z.object({
  data: z.array(ItemEntrySchema),
  nextCursor: z.string().nullable(),
  backwardsCursor: z.string().nullable().optional(),
});
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

const itemIdOf = (entry: ItemEntry | undefined) =>
  entry ? (AnyItemSchema.safeParse(entry.item).data?.id ?? null) : null;

/** A page of items from a cursor, without the anchor a reversed cursor repeats. */
function withoutAnchor(entries: ItemEntry[], cursor: Cursor | null, limit: number): ItemEntry[] {
  const kept = cursor?.skip ? entries.filter((entry) => itemIdOf(entry) !== cursor.skip) : entries;
  return kept.slice(0, limit);
}

function encodeCursor(cursor: Cursor | null): string | null {
  return cursor ? Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url') : null;
}

function decodeCursor(text: string): Cursor {
  const cursor = parseJsonWith(CursorSchema, Buffer.from(text, 'base64url').toString('utf8'));
  if (!cursor) throw notFound('This timeline cursor is not valid any more. Reload the timeline.');
  return cursor;
}

/** Codex's turn times are whole seconds. */
const TURN_TIME_SLACK_MS = 1000;

/**
 * A command Codex saved after its turn had ended: the command a Stop interrupted is saved when
 * the thread is next resumed (after a restart), after every later turn's items, where it did not
 * happen. It is left out of the saved list, so the app's own row for it (recorded live) is placed
 * in its turn by its start time, as it was live (TL-3).
 */
function savedLate(entry: ItemEntry, turn: CodexTurn | null): boolean {
  if (
    !turn ||
    turn.status === 'inProgress' ||
    typeof turn.completedAt !== 'number' ||
    typeof entry.completedAtMs !== 'number'
  )
    return false;
  return (
    AnyItemSchema.safeParse(entry.item).data?.type === 'commandExecution' &&
    entry.completedAtMs > turn.completedAt * 1000 + TURN_TIME_SLACK_MS
  );
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
  private readonly turnItemsKept = new Map<string, ItemEntry[]>();

  constructor(
    private readonly call: CodexCall,
    private readonly recordOf: (sessionId: string, turnId: string) => TurnRecord,
  ) {}

  async page(request: ThreadPageRequest): Promise<HistoryPage> {
    const cursor = request.before ? decodeCursor(request.before) : request.after ? decodeCursor(request.after) : null;
    const direction = cursor?.direction ?? 'desc';
    const page = await this.call(
      'thread/items/list',
      {
        threadId: request.threadId,
        limit: request.limit + (cursor?.skip ? 1 : 0),
        sortDirection: direction,
        ...(cursor ? { cursor: cursor.codex } : {}),
      },
      ItemsPageSchema,
    );
    const inOrder = withoutAnchor(page.data, cursor, request.limit);
    const entries = direction === 'desc' ? [...inOrder].reverse() : inOrder;
    const onward = page.nextCursor ? { direction, codex: page.nextCursor } : null;
    // The reversed cursor's anchor is the page's item nearest to where it points.
    const anchor = itemIdOf(direction === 'desc' ? entries.at(-1) : entries[0]);
    const back =
      page.backwardsCursor && anchor
        ? {
            direction: direction === 'desc' ? ('asc' as const) : ('desc' as const),
            codex: page.backwardsCursor,
            skip: anchor,
          }
        : null;
    const older = direction === 'desc' ? onward : back;
    // The newest page has nothing newer yet; the live overlay shows what comes next.
    const newer = direction === 'asc' ? onward : cursor ? back : null;
    const before = await this.entryBefore(request.threadId, older);
    const startsAfter = before ? (before.startedAtMs ?? before.completedAtMs ?? undefined) : undefined;
    const mapped = await this.toEntries(request, entries);
    const newestClientId = newer === null ? await this.newestClientId(request.threadId) : undefined;
    return {
      ...mapped,
      older: encodeCursor(older),
      newer: encodeCursor(newer),
      ...(startsAfter === undefined ? {} : { startsAfter }),
      ...(newestClientId === undefined ? {} : { newestClientId }),
    };
  }

  /** The client id of the message that started the thread's newest turn (items Codex saved late can fill the newest page). */
  private async newestClientId(threadId: string): Promise<string | null> {
    const page = await this.call(
      'thread/turns/list',
      { threadId, limit: 1, sortDirection: 'desc', itemsView: 'notLoaded' },
      TurnsPageSchema,
    );
    const turn = page.data[0];
    if (!turn) return null;
    const first = (await this.turnItems(threadId, turn.id, turn.status !== 'inProgress'))[0];
    const user = first && UserMessageSchema.safeParse(first.item);
    return user?.success ? (user.data.clientId ?? null) : null;
  }

  /** The saved item just before a page: where the rows the history lacks stop belonging to the older page. */
  private async entryBefore(threadId: string, older: Cursor | null): Promise<ItemEntry | null> {
    if (!older) return null;
    const peek = await this.call(
      'thread/items/list',
      { threadId, limit: older.skip ? 2 : 1, sortDirection: older.direction, cursor: older.codex },
      ItemsPageSchema,
    );
    return withoutAnchor(peek.data, older, 1)[0] ?? null;
  }

  /**
   * The entries with each ended turn's closers right after the turn's last saved item, on the
   * one page that holds it. Codex may save an item of a turn after items of the next one (an
   * item that completes after a Stop): the closers still come once, where the turn ended (TL-3).
   * Each entry names its turn's first message; the page names every item its turns saved.
   */
  private async toEntries(
    request: ThreadPageRequest,
    entries: ItemEntry[],
  ): Promise<{ entries: HistoryEntry[]; savedItemIds: string[] }> {
    const turns = new Map<string, { turn: CodexTurn | null; items: ItemEntry[]; planAfter: string | null }>();
    for (const entry of entries) {
      if (turns.has(entry.turnId)) continue;
      const turn = await this.turn(request.threadId, entry.turnId);
      const ended = turn !== null && turn.status !== 'inProgress';
      const items = await this.turnItems(request.threadId, entry.turnId, ended);
      turns.set(entry.turnId, { turn, items, planAfter: ended ? this.planPlace(items, turn, request) : null });
    }
    const out: HistoryEntry[] = [];
    for (const entry of entries) {
      const { turn, items, planAfter } = turns.get(entry.turnId)!;
      if (savedLate(entry, turn)) continue;
      const first = items[0] && UserMessageSchema.safeParse(items[0].item);
      const turnClientId = first?.success ? (first.data.clientId ?? null) : null;
      const entryOut = this.entryOf(entry, request);
      if (entryOut) out.push({ ...entryOut, turnClientId });
      if (!turn || turn.status === 'inProgress') continue;
      const plan =
        planAfter !== null && planAfter === itemIdOf(entry) ? this.recordOf(request.sessionId, turn.id).plan : null;
      if (plan) out.push({ kind: 'item', item: this.planItem(turn, plan, request), turnClientId });
      if (this.lastShownOf(items, turn, request) !== itemIdOf(entry)) continue;
      for (const item of this.turnClosers(turn, request, planAfter !== null))
        out.push({ kind: 'item', item, turnClientId });
    }
    const savedItemIds = [...turns.values()].flatMap(({ turn, items }) =>
      items
        .filter((item) => !savedLate(item, turn))
        .map((item) => itemIdOf(item))
        .filter((id): id is string => id !== null),
    );
    return { entries: out, savedItemIds };
  }

  /**
   * The turn's last item that is a row. Codex saves bookkeeping for an interrupted turn when its
   * thread is resumed (after a restart), after later turns' items: that shows nothing and must
   * not move the turn's end below the turns after it.
   */
  private lastShownOf(items: readonly ItemEntry[], turn: CodexTurn, request: ThreadPageRequest): string | null {
    for (let i = items.length - 1; i >= 0; i -= 1)
      if (!savedLate(items[i]!, turn) && this.entryOf(items[i]!, request)) return itemIdOf(items[i]);
    return null;
  }

  /** Every saved item of a turn, in order (bounded); an ended turn's never change, so they are kept. */
  private async turnItems(threadId: string, turnId: string, ended: boolean): Promise<ItemEntry[]> {
    const key = `${threadId}/${turnId}`;
    const known = this.turnItemsKept.get(key);
    if (known) return known;
    const items: ItemEntry[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < MAX_LOOKUP_PAGES; pages += 1) {
      const page: z.output<typeof ItemsPageSchema> = await this.call(
        'thread/items/list',
        { threadId, turnId, limit: LOOKUP_PAGE, sortDirection: 'asc', ...(cursor ? { cursor } : {}) },
        ItemsPageSchema,
      );
      items.push(...page.data);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    if (ended) this.turnItemsKept.set(key, items);
    return items;
  }

  /**
   * The saved item a turn's kept plan goes right after: the one it was first shown after live, or
   * the nearest shown item before that one, so it has the same place saved as live (TL-3, TL-6).
   * A plan shown before any item goes after the turn's first (its message). Null: the plan closes
   * the turn (a record from before places were kept).
   */
  private planPlace(items: readonly ItemEntry[], turn: CodexTurn, request: ThreadPageRequest): string | null {
    const after = this.recordOf(request.sessionId, turn.id).plan?.after;
    if (after === undefined) return null;
    const from = after === null ? 0 : items.findIndex((item) => itemIdOf(item) === after);
    for (let i = from; i >= 0; i -= 1) {
      if (!savedLate(items[i]!, turn) && this.entryOf(items[i]!, request)) return itemIdOf(items[i]);
    }
    return null;
  }

  private planItem(turn: CodexTurn, plan: SavedPlan, request: ThreadPageRequest): AgentItem {
    const { explanation, entries, createdAt } = plan;
    return {
      kind: 'plan',
      itemId: turnPlanItemId(turn.id),
      parentItemId: request.parentItemId,
      explanation,
      entries,
      createdAt,
    };
  }

  /** What closes a saved turn: its last plan (unless placed where it was shown), the error it failed with, its end (TL-1). */
  private turnClosers(turn: CodexTurn, request: ThreadPageRequest, planPlaced: boolean): AgentItem[] {
    const record = this.recordOf(request.sessionId, turn.id);
    const end = turnEndItem(turn, record.usage, request.parentItemId);
    const closers: AgentItem[] = [];
    if (record.plan && !planPlaced) closers.push(this.planItem(turn, record.plan, request));
    if (turn.error)
      closers.push(agentErrorItem(turnErrorItemId(turn.id), turn.error, end.createdAt, request.parentItemId));
    return [...closers, end];
  }

  private entryOf(entry: ItemEntry, request: ThreadPageRequest): HistoryEntry | null {
    const createdAt = entry.startedAtMs ?? entry.completedAtMs ?? 0;
    const head = AnyItemSchema.safeParse(entry.item);
    if (request.parentItemId === null && head.success && head.data.type === 'userMessage') {
      const user = UserMessageSchema.safeParse(entry.item);
      if (user.success)
        return {
          kind: 'user',
          itemId: user.data.id,
          text: userMessageText(user.data),
          createdAt,
          clientId: user.data.clientId ?? null,
        };
    }
    if (
      request.parentItemId === null &&
      head.success &&
      head.data.type === 'commandExecution' &&
      typeof head.data.command === 'string'
    ) {
      return { kind: 'command', itemId: head.data.id, command: head.data.command, createdAt };
    }
    const item = codexItem(entry.item, {
      cwd: request.cwd,
      createdAt,
      parentItemId: request.parentItemId,
      running: false,
      subagentTimeline: request.parentItemId !== null,
    });
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

  /**
   * Waits (bounded) until Codex's saved turn list has a turn that just ended as its turn/completed
   * said: Codex may list it a moment longer as it was before (seen: a failed turn listed as
   * interrupted, without its error). What was kept of the turn from such a read is dropped, so the
   * saved rows the run's live rows give way to are the turn as it ended (TL-3). Answers how many
   * reads it took.
   */
  async awaitSavedEnd(threadId: string, turnId: string, status: string, delaysMs: readonly number[]): Promise<number> {
    let reads = 0;
    for (const delay of [0, ...delaysMs]) {
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      reads += 1;
      const page = await this.call(
        'thread/turns/list',
        { threadId, limit: LOOKUP_PAGE, sortDirection: 'desc', itemsView: 'notLoaded' },
        TurnsPageSchema,
      );
      const saved = page.data.find((turn) => turn.id === turnId);
      if (saved?.status === status) break;
    }
    this.turns.delete(`${threadId}/${turnId}`);
    this.turnItemsKept.delete(`${threadId}/${turnId}`);
    return reads;
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
  async itemText(request: {
    threadId: string;
    cwd: string;
    parentItemId: string | null;
    itemId: string;
    field: string;
    offset: number;
    length: number;
  }): Promise<AgentOutputSlice> {
    const raw = await this.findItem(request.threadId, request.itemId);
    const item = codexItem(raw, {
      cwd: request.cwd,
      createdAt: 0,
      parentItemId: request.parentItemId,
      running: false,
      inlineBytes: Infinity,
      subagentTimeline: request.parentItemId !== null,
    });
    const text = item ? itemFieldText(item, request.field) : null;
    if (text === null) throw notFound(`This item has no text "${request.field}".`);
    return textSlice(text, request.offset, request.length);
  }
}
