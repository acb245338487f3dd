import type { CommandRow, TimelineRow } from '../../../lib/protocol/rows';
import type { HistoryEntry } from '../agents/agent';
import { checkedItemRow, inlineTexts, itemRowId, wireItemRow } from './itemRows';
import { messageRowOf, type RunRecord } from './sessionStore';

/** What mapping history entries needs to know of the app's own records. */
export interface HistoryContext {
  sessionId: string;
  parentItemId: string | null;
  /** The app run that sent a user message: by its operation id or the agent's id for it (Codex clientUserMessageId, Claude message uuid). */
  runOfUser(clientId: string): RunRecord | undefined;
  /** The app's command row for a command the agent ran. */
  commandRow(commandId: string): CommandRow | undefined;
}

export interface MappedHistory {
  rows: TimelineRow[];
  /** App runs whose user message this history holds. */
  matchedRuns: Set<string>;
  /** Item ids of the entries (the saved state the live overlay gives way to). */
  itemIds: Set<string>;
}

/**
 * One page of the agent's saved history as timeline rows (TL-4), one row per entry, in the
 * agent's order: a user message the app sent becomes the app's message row (with its state),
 * any other a `userText` row; a command becomes the app's command row when the app recorded it;
 * every item becomes a saved row. An entry this version cannot read becomes a raw row (TL-1).
 */
export function mapHistoryEntries(entries: readonly HistoryEntry[], context: HistoryContext): MappedHistory {
  const { sessionId, parentItemId } = context;
  const rows: TimelineRow[] = [];
  const matchedRuns = new Set<string>();
  const itemIds = new Set<string>();
  let runId: string | null = null;
  for (const entry of entries as readonly unknown[]) {
    const known = entry as HistoryEntry;
    if (typeof entry !== 'object' || entry === null) {
      rows.push(inlineTexts(checkedItemRow(entry, sessionId, parentItemId, runId, 'saved')));
    } else if (known.kind === 'user' && typeof known.itemId === 'string' && typeof known.text === 'string') {
      const run = typeof known.clientId === 'string' ? context.runOfUser(known.clientId) : undefined;
      runId = run?.id ?? null;
      itemIds.add(known.itemId);
      if (run) {
        matchedRuns.add(run.id);
        rows.push(messageRowOf(run));
      } else {
        rows.push({
          kind: 'userText', id: itemRowId(parentItemId, known.itemId), sessionId, runId: null, itemId: known.itemId, parentItemId,
          createdAt: integerOr(known.createdAt, 0), source: 'saved', text: known.text,
        });
      }
    } else if (known.kind === 'command' && typeof known.itemId === 'string' && typeof known.command === 'string') {
      itemIds.add(known.itemId);
      rows.push(context.commandRow(known.itemId) ?? commandWithoutRecord(known, sessionId, parentItemId, runId));
    } else if (known.kind === 'item' && typeof known.item === 'object' && known.item !== null) {
      if (typeof known.item.itemId === 'string') itemIds.add(known.item.itemId);
      rows.push(wireItemRow({ ...known.item, parentItemId: known.item.parentItemId ?? parentItemId }, sessionId, runId, 'saved'));
    } else {
      rows.push(inlineTexts(checkedItemRow(entry, sessionId, parentItemId, runId, 'saved')));
    }
  }
  return { rows, matchedRuns, itemIds };
}

const integerOr = (value: unknown, fallback: number) => (typeof value === 'number' && Number.isInteger(value) ? value : fallback);

/** A command the agent ran that the app has no row for (run elsewhere): a completed tool call naming it. */
function commandWithoutRecord(entry: Extract<HistoryEntry, { kind: 'command' }>, sessionId: string, parentItemId: string | null, runId: string | null): TimelineRow {
  return inlineTexts({
    kind: 'toolCall', id: itemRowId(parentItemId, entry.itemId), sessionId, runId, itemId: entry.itemId, parentItemId,
    createdAt: integerOr(entry.createdAt, 0), source: 'saved', tool: 'command', title: entry.command.split('\n', 1)[0]!.slice(0, 200),
    input: { text: entry.command, byteLength: Buffer.byteLength(entry.command, 'utf8'), truncated: false }, status: 'completed', result: null, error: null,
  });
}
