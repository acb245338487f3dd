import type { AgentKind, Session, TimelineRow } from '../../../lib/protocol/rows';
import type { Agent, HistoryEntry, HistoryPage } from '../agents/agent';
import type { ErrorCode } from '../../../lib/protocol/errors';
import { notFound, RuntimeError, unavailable } from '../errors';
import type { Logger } from '../log';
import { appRowsPage } from './appRowPages';
import { mapHistoryEntries, type MappedHistory } from './historyRows';
import { wireItemRow } from './itemRows';
import { targetOf, type LiveEntry, type LiveOverlayStore } from './liveOverlay';
import { decodeCursor, encodeCursor, type PageCursor } from './pageCursor';
import { messageRowOf, type SessionStore } from './sessionStore';

/** Rows of a page when the caller gives no limit: whole for small sessions, as before paging. */
export const DEFAULT_TIMELINE_LIMIT = 200;

export interface TimelinePageRequest {
  sessionId: string;
  parentItemId: string | null;
  before?: string;
  after?: string;
  limit?: number;
}

export interface TimelinePageAnswer {
  rows: TimelineRow[];
  older: string | null;
  newer: string | null;
  revision: number;
}

export interface TimelinePagesDeps {
  sessions: SessionStore;
  overlay: LiveOverlayStore;
  agents: ReadonlyMap<AgentKind, Agent>;
  /** Where the session works: its worktree, else its project folder. */
  sessionDirectory: (session: Session) => string | undefined;
  log: Logger;
}

/**
 * `sessions.timeline` (TL-3, TL-4): one page of a session's timeline. Agents that keep a history
 * are read through it, page by page; the newest page adds the app's messages the history does
 * not have yet and the live rows of runs not yet reconciled. Shell sessions, and agents whose
 * history cannot be read, page the app's own rows.
 */
/** Errors of a conversation file (SRC-2, SRC-3, SRC-5) that the app acts on: passed on as they are. */
const SOURCE_ERRORS = new Set<ErrorCode>(['source_unavailable', 'reload_required', 'missing_history_source']);

export class TimelinePages {
  constructor(private readonly deps: TimelinePagesDeps) {}

  async page(request: TimelinePageRequest): Promise<TimelinePageAnswer> {
    const { sessions, overlay } = this.deps;
    const session = sessions.session(request.sessionId);
    if (!session) throw notFound('No such session.', { sessionId: request.sessionId });
    const limit = request.limit ?? DEFAULT_TIMELINE_LIMIT;
    const before = request.before === undefined ? null : decodeCursor(request.before);
    const after = request.after === undefined ? null : decodeCursor(request.after);
    // NOTE: the overlay is read before the history, so a reconciliation in between is either in
    // this page or announced with a newer revision than this page's (TL-3).
    const revision = overlay.revision();
    const live = overlay.entries(session.id, targetOf(session.id, request.parentItemId));
    const agent = this.deps.agents.get(session.agent);
    const cwd = this.deps.sessionDirectory(session);
    const agentCursor = before?.k === 'agent' || after?.k === 'agent';
    const appCursor = before?.k === 'runs' || after?.k === 'runs';
    if (agent?.historyPage && cwd && !appCursor) {
      let history: HistoryPage | null = null;
      try {
        history = await agent.historyPage({
          sessionId: session.id,
          cwd,
          parentItemId: request.parentItemId,
          limit,
          before: before?.k === 'agent' ? before.c : null,
          after: after?.k === 'agent' ? after.c : null,
        });
      } catch (error) {
        // SRC-2, SRC-3, SRC-5: a conversation file gone or changed, or its ancestor missing, is said as such, never hidden by the app's rows.
        if (error instanceof RuntimeError && SOURCE_ERRORS.has(error.code)) throw error;
        if (agentCursor)
          throw unavailable('The agent could not read this part of its history.', { reason: (error as Error).message });
        this.deps.log.warn('agent history unavailable, showing the app rows', {
          sessionId: session.id,
          reason: (error as Error).message,
        });
      }
      if (history) return { ...this.historyRows(request, history, live), revision };
    }
    if (agentCursor) throw unavailable('The agent no longer reads its history here.');
    return { ...this.appRows(request, before, after, limit, live), revision };
  }

  private historyRows(request: TimelinePageRequest, history: HistoryPage, live: readonly LiveEntry[]) {
    const { sessions } = this.deps;
    const mapped = mapHistoryEntries(history.entries, {
      sessionId: request.sessionId,
      parentItemId: request.parentItemId,
      runOfUser: (clientId) => sessions.runOfUserMessage(request.sessionId, clientId),
      commandRow: (commandId) => sessions.commandInSession(request.sessionId, commandId),
      commandsOfRun: (runId) => sessions.commandsOfRun(runId),
      ...(history.startsAfter === undefined ? {} : { startsAfter: history.startsAfter }),
      ...(history.savedItemIds ? { savedItemIds: new Set(history.savedItemIds) } : {}),
    });
    const rows = mapped.rows;
    if (history.newer === null) rows.push(...this.notYetSaved(request, history, mapped, live));
    return {
      rows,
      older: history.older === null ? null : encodeCursor({ k: 'agent', c: history.older }),
      newer: history.newer === null ? null : encodeCursor({ k: 'agent', c: history.newer }),
    };
  }

  /**
   * What the newest page shows after the saved history: per app run in order, its message when
   * the history lacks it, then its live rows and command rows the history does not have yet.
   */
  private notYetSaved(
    request: TimelinePageRequest,
    history: HistoryPage,
    mapped: MappedHistory,
    live: readonly LiveEntry[],
  ): TimelineRow[] {
    const { sessions } = this.deps;
    const shown = new Set(mapped.rows.map((row) => row.id));
    const pending = live.filter((entry) => !mapped.itemIds.has(entry.item.itemId));
    const liveOf = (runId: string) =>
      pending
        .filter((entry) => entry.runId === runId)
        .map((entry) => wireItemRow(entry.item, request.sessionId, entry.runId, 'live'));
    if (request.parentItemId !== null)
      return pending.map((entry) => wireItemRow(entry.item, request.sessionId, entry.runId, 'live'));
    // Runs the history may not have yet: accepted after its page began, and after the newest
    // run it does have (an agent whose entries carry no time still places them after that one).
    const since = history.older === null ? 0 : oldestTime(history.entries);
    // The agent may name the message of its newest saved turn: runs up to that one are saved (TL-3).
    const newestSaved = history.newestClientId
      ? (sessions.runOfUserMessage(request.sessionId, history.newestClientId)?.seq ?? 0)
      : 0;
    const newestMatched = Math.max(newestSaved, ...[...mapped.matchedRuns].map((id) => sessions.run(id)?.seq ?? 0));
    const runs = new Map(
      sessions
        .runsSince(request.sessionId, since)
        .filter((run) => run.seq > newestMatched || mapped.matchedRuns.has(run.id))
        .map((run) => [run.id, run]),
    );
    for (const entry of pending) {
      const run = runs.has(entry.runId) ? undefined : sessions.run(entry.runId);
      if (run) runs.set(run.id, run);
    }
    const rows: TimelineRow[] = [];
    for (const run of [...runs.values()].sort((a, b) => a.seq - b.seq)) {
      if (!mapped.matchedRuns.has(run.id)) rows.push(messageRowOf(run));
      // A turn that ended in the history has its commands placed in its pages already.
      const commands = mapped.endedRuns.has(run.id)
        ? []
        : sessions.commandsOfRun(run.id).filter((row) => !shown.has(row.id) && !mapped.itemIds.has(row.commandId));
      const rest = [...liveOf(run.id), ...commands];
      rows.push(...rest.sort((a, b) => timeOf(a) - timeOf(b)));
    }
    return rows;
  }

  private appRows(
    request: TimelinePageRequest,
    before: PageCursor | null,
    after: PageCursor | null,
    limit: number,
    live: readonly LiveEntry[],
  ) {
    const position =
      after?.k === 'runs' ? { fromSeq: after.seq } : before?.k === 'runs' ? { beforeSeq: before.seq } : {};
    if (request.parentItemId !== null)
      return {
        rows: live.map((entry) => wireItemRow(entry.item, request.sessionId, entry.runId, 'live')),
        older: null,
        newer: null,
      };
    const page = appRowsPage(this.deps.sessions, request.sessionId, position, limit);
    // The live rows of an agent whose history cannot be read are its only rows: on the newest page.
    if (page.newer === null)
      page.rows.push(...live.map((entry) => wireItemRow(entry.item, request.sessionId, entry.runId, 'live')));
    return page;
  }
}

const timeOf = (row: TimelineRow) => (row.kind === 'command' ? row.startedAt : row.createdAt);

function oldestTime(entries: readonly HistoryEntry[]): number {
  let oldest = Number.MAX_SAFE_INTEGER;
  for (const entry of entries) {
    const at = entry.kind === 'item' ? entry.item?.createdAt : entry.createdAt;
    if (typeof at === 'number' && at < oldest) oldest = at;
  }
  return oldest === Number.MAX_SAFE_INTEGER ? 0 : oldest;
}
