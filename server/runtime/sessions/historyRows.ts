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
  /**
   * The app's command rows of a run, oldest first: those the history lacks (a declined command,
   * one that never started) are placed in their turn by time (TL-3). Without it they are not placed.
   */
  commandsOfRun?(runId: string): CommandRow[];
  /** HistoryPage.startsAfter of the page mapped, when known. */
  startsAfter?: number;
  /** HistoryPage.savedItemIds of the page mapped: commands the agent saved elsewhere are never placed. */
  savedItemIds?: ReadonlySet<string>;
}

export interface MappedHistory {
  rows: TimelineRow[];
  /** App runs whose user message this history holds (on this page, or its turn's entries name it). */
  matchedRuns: Set<string>;
  /** App runs whose turn ends on this page: their unsaved commands are placed in it (TL-3). */
  endedRuns: Set<string>;
  /** Item ids of the entries and of every item their turns saved (the saved state the live overlay gives way to). */
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
  /** Per row, the run whose turn it is in (a steer's message is in the turn it steered). */
  const turnRuns: (string | null)[] = [];
  const matchedRuns = new Set<string>();
  const endedRuns = new Set<string>();
  const itemIds = new Set<string>();
  let runId: string | null = null;
  const push = (row: TimelineRow) => {
    rows.push(row);
    turnRuns.push(runId);
    if (row.kind === 'turnEnd' && runId !== null) endedRuns.add(runId);
  };
  for (const entry of entries as readonly unknown[]) {
    const known = entry as HistoryEntry;
    if (typeof entry !== 'object' || entry === null) {
      push(inlineTexts(checkedItemRow(entry, sessionId, parentItemId, runId, 'saved')));
      continue;
    }
    // The agent names the turn's run wherever the page starts; else the last message's run goes on.
    const turnRun = typeof known.turnClientId === 'string' ? context.runOfUser(known.turnClientId)?.id : undefined;
    if (turnRun) {
      runId = turnRun;
      matchedRuns.add(turnRun);
    }
    if (known.kind === 'user' && typeof known.itemId === 'string' && typeof known.text === 'string') {
      const run = typeof known.clientId === 'string' ? context.runOfUser(known.clientId) : undefined;
      runId = turnRun ?? run?.id ?? null;
      itemIds.add(known.itemId);
      if (run) {
        matchedRuns.add(run.id);
        push(messageRowOf(run));
      } else {
        push({
          kind: 'userText',
          id: itemRowId(parentItemId, known.itemId),
          sessionId,
          runId: null,
          itemId: known.itemId,
          parentItemId,
          createdAt: integerOr(known.createdAt, 0),
          source: 'saved',
          text: known.text,
        });
      }
    } else if (known.kind === 'command' && typeof known.itemId === 'string' && typeof known.command === 'string') {
      itemIds.add(known.itemId);
      push(context.commandRow(known.itemId) ?? commandWithoutRecord(known, sessionId, parentItemId, runId));
    } else if (known.kind === 'item' && typeof known.item === 'object' && known.item !== null) {
      if (typeof known.item.itemId === 'string') itemIds.add(known.item.itemId);
      push(
        wireItemRow(
          { ...known.item, parentItemId: known.item.parentItemId ?? parentItemId },
          sessionId,
          runId,
          'saved',
        ),
      );
    } else {
      push(inlineTexts(checkedItemRow(entry, sessionId, parentItemId, runId, 'saved')));
    }
  }
  // Items the page's turns saved on another page are saved too: neither placed here nor shown live.
  for (const id of context.savedItemIds ?? []) itemIds.add(id);
  if (context.commandsOfRun) placeUnsavedCommands(rows, turnRuns, itemIds, context.commandsOfRun, context.startsAfter);
  return { rows, matchedRuns, endedRuns, itemIds };
}

const timeOf = (row: TimelineRow) => (row.kind === 'command' ? row.startedAt : row.createdAt);
const isCloser = (row: TimelineRow) => row.kind === 'plan' || row.kind === 'agentError';

/**
 * Commands the app recorded for a run that the agent's history does not keep (Codex saves no
 * item for a declined command) go where they happened: among their turn's rows by start time,
 * before the turn's closing rows, on the page whose part of the turn covers that time. A turn's
 * part runs from its run's message (or the page's start) to its end (or the page's end); a time
 * before the part belongs to the older page, one after a part without the end to the newer
 * page, so each command is on exactly one page, the same on every read (TL-3, TL-4).
 */
function placeUnsavedCommands(
  rows: TimelineRow[],
  turnRuns: (string | null)[],
  itemIds: ReadonlySet<string>,
  commandsOfRun: (runId: string) => CommandRow[],
  startsAfter: number | undefined,
): void {
  const shown = new Set(rows.map((row) => row.id));
  for (const run of new Set(turnRuns)) {
    if (run === null) continue;
    for (const command of commandsOfRun(run)) {
      if (shown.has(command.id) || itemIds.has(command.commandId)) continue;
      const at = placeOf(rows, turnRuns, run, command.startedAt, startsAfter);
      if (at === null) continue;
      rows.splice(at, 0, command);
      turnRuns.splice(at, 0, run);
      shown.add(command.id);
    }
  }
}

/** Where in the page a row of `run`'s turn that started at `time` goes, or null when it is on another page. */
function placeOf(
  rows: readonly TimelineRow[],
  turnRuns: readonly (string | null)[],
  run: string,
  time: number,
  startsAfter: number | undefined,
): number | null {
  const from = turnRuns.indexOf(run);
  const to = turnRuns.lastIndexOf(run) + 1;
  const first = rows[from]!;
  const hasStart = first.kind === 'message' && first.runId === run;
  // A part without its start: a time before the entry just before the page (else the page's first) is the older page's.
  if (!hasStart && time < (from === 0 && startsAfter !== undefined ? startsAfter : timeOf(first))) return null;
  const endAt = rows.findIndex((row, i) => i >= from && i < to && row.kind === 'turnEnd' && turnRuns[i] === run);
  let stop = endAt === -1 ? to : endAt;
  while (endAt !== -1 && stop > from + 1 && isCloser(rows[stop - 1]!)) stop -= 1;
  let at = from + (hasStart ? 1 : 0);
  while (at < stop && timeOf(rows[at]!) <= time) at += 1;
  return at === stop && endAt === -1 ? null : at;
}

const integerOr = (value: unknown, fallback: number) =>
  typeof value === 'number' && Number.isInteger(value) ? value : fallback;

/** A command the agent ran that the app has no row for (run elsewhere): a completed tool call naming it. */
function commandWithoutRecord(
  entry: Extract<HistoryEntry, { kind: 'command' }>,
  sessionId: string,
  parentItemId: string | null,
  runId: string | null,
): TimelineRow {
  return inlineTexts({
    kind: 'toolCall',
    id: itemRowId(parentItemId, entry.itemId),
    sessionId,
    runId,
    itemId: entry.itemId,
    parentItemId,
    createdAt: integerOr(entry.createdAt, 0),
    source: 'saved',
    tool: 'command',
    title: entry.command.split('\n', 1)[0]!.slice(0, 200),
    input: { text: entry.command, byteLength: Buffer.byteLength(entry.command, 'utf8'), truncated: false },
    status: 'completed',
    result: null,
    error: null,
  });
}
