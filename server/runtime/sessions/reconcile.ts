import type { AgentKind, Session, TimelineRow } from '../../../lib/protocol/rows';
import type { Agent, HistoryEntry } from '../agents/agent';
import type { Logger } from '../log';
import { mapHistoryEntries } from './historyRows';
import { itemRowId } from './itemRows';
import type { LiveOverlayStore } from './liveOverlay';
import type { RunRecord, SessionStore } from './sessionStore';

export interface ReconcilerDeps {
  sessions: SessionStore;
  overlay: LiveOverlayStore;
  agents: ReadonlyMap<AgentKind, Agent>;
  /** Where the session works: its worktree, else its project folder. */
  sessionDirectory: (session: Session) => string | undefined;
  publishRow: (sessionId: string, row: TimelineRow, revision: number) => void;
  publishRemoved: (sessionId: string, ids: string[], revision: number) => void;
  log: Logger;
}

/** Waits between attempts while the agent's history does not have the turn yet; then once a minute. */
const RETRY_DELAYS_MS = [0, 250, 500, 1000, 2000, 4000, 8000, 15_000, 30_000, 60_000];
/** Attempts per runtime start (about half an hour); the next start tries again. */
const MAX_ATTEMPTS = 40;
/**
 * Attempts that insist on finding a live item in the history: a history that has the user's
 * message but none of the turn's items may still be writing them. After these, the message is enough.
 */
const ATTEMPTS_WANTING_ITEMS = 3;
const HISTORY_PAGE_LIMIT = 200;
const MAX_HISTORY_PAGES = 25;
/** How far before a run's start the history is searched for it (clocks of the agent and the app differ). */
const CLOCK_SLACK_MS = 5 * 60_000;

interface SavedTurn {
  /** Saved entries by item id, newest state. */
  saved: Map<string, HistoryEntry>;
  userFound: boolean;
  liveFound: boolean;
}

/**
 * Replaces an ended run's live rows with the agent's saved history (TL-3): saved rows take the
 * live rows' place by stable item id, live rows the history lacks go only once the history has
 * the turn, and the pending cleanup is deleted when every timeline of the run is done. Until
 * then the live rows stay shown, across restarts.
 */
export class Reconciler {
  private readonly scheduled = new Map<string, NodeJS.Timeout | 'running'>();
  private closed = false;

  constructor(private readonly deps: ReconcilerDeps) {}

  /** Start-up: runs that still have live rows (ended, or running when the runtime died) are reconciled. */
  recoverAtStart(): void {
    const { overlay } = this.deps;
    for (const { sessionId, runId } of overlay.runsWithEntries()) overlay.addCleanup(sessionId, runId);
    for (const { sessionId, runId } of overlay.cleanups()) this.schedule(sessionId, runId);
  }

  /** The run ended: written before the scheduler forgets it, then reconciled as soon as the history has it. */
  runEnded(sessionId: string, runId: string): void {
    const { overlay } = this.deps;
    if (overlay.targetsOfRun(sessionId, runId).length === 0) return;
    overlay.addCleanup(sessionId, runId);
    this.schedule(sessionId, runId);
  }

  private schedule(sessionId: string, runId: string, attempt = 0): void {
    const key = `${sessionId}\u0000${runId}`;
    if (this.closed || (attempt === 0 && this.scheduled.has(key))) return;
    const delay = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)]!;
    const timer = setTimeout(() => {
      this.scheduled.set(key, 'running');
      this.reconcile(sessionId, runId, attempt).then(
        (done) => this.after(key, sessionId, runId, attempt, done),
        (error: unknown) => {
          this.deps.log.warn('reconciling live rows failed', { sessionId, runId, reason: (error as Error).message });
          this.after(key, sessionId, runId, attempt, false);
        },
      );
    }, delay);
    timer.unref();
    this.scheduled.set(key, timer);
  }

  private after(key: string, sessionId: string, runId: string, attempt: number, done: boolean): void {
    this.scheduled.delete(key);
    if (!done && attempt + 1 < MAX_ATTEMPTS) this.schedule(sessionId, runId, attempt + 1);
  }

  /** One attempt; true when every timeline of the run is reconciled and its cleanup deleted. */
  async reconcile(sessionId: string, runId: string, attempt: number): Promise<boolean> {
    const { sessions, overlay } = this.deps;
    const session = sessions.session(sessionId);
    const run = sessions.run(runId);
    const agent = session && this.deps.agents.get(session.agent);
    const cwd = session && this.deps.sessionDirectory(session);
    if (this.closed) return false;
    if (!session || !run || !agent?.historyPage || !cwd) {
      // No history to give way to: the live rows are the record of the run and stay.
      if (session) overlay.deleteCleanup(sessionId, runId);
      return true;
    }
    // The session's own timeline first: it says whether the history has the turn at all.
    const targets = overlay
      .targetsOfRun(sessionId, runId)
      .sort((a, b) => Number(b === sessionId) - Number(a === sessionId));
    for (const target of targets) {
      const parentItemId = target === sessionId ? null : target;
      const liveIds = new Set(
        overlay
          .entries(sessionId, target)
          .filter((e) => e.runId === runId)
          .map((e) => e.item.itemId),
      );
      const turn = await this.readSavedTurn(agent, cwd, run, parentItemId, liveIds);
      if (this.closed) return false;
      const covered =
        turn.liveFound ||
        liveIds.size === 0 ||
        (attempt >= ATTEMPTS_WANTING_ITEMS && (turn.userFound || parentItemId !== null));
      if (!covered) return false;
      this.replaceLiveRows(run, target, parentItemId, turn.saved);
    }
    overlay.deleteCleanup(sessionId, runId);
    return true;
  }

  /** Reads the agent's history newest first until it covers the run (its user message, or all its live items). */
  private async readSavedTurn(
    agent: Agent,
    cwd: string,
    run: RunRecord,
    parentItemId: string | null,
    liveIds: Set<string>,
  ): Promise<SavedTurn> {
    const turn: SavedTurn = { saved: new Map(), userFound: false, liveFound: false };
    let before: string | null = null;
    let missing = liveIds.size;
    for (let page = 0; page < MAX_HISTORY_PAGES; page++) {
      const history = await agent.historyPage!({
        sessionId: run.sessionId,
        cwd,
        parentItemId,
        before,
        after: null,
        limit: HISTORY_PAGE_LIMIT,
      });
      if (this.closed) break;
      let oldest = Number.MAX_SAFE_INTEGER;
      for (const entry of [...history.entries].reverse()) {
        const itemId = entry.kind === 'item' ? entry.item?.itemId : entry.itemId;
        if (typeof itemId === 'string' && !turn.saved.has(itemId)) {
          turn.saved.set(itemId, entry);
          if (liveIds.has(itemId)) {
            turn.liveFound = true;
            missing--;
          }
        }
        if (
          entry.kind === 'user' &&
          entry.clientId &&
          this.deps.sessions.runOfUserMessage(run.sessionId, entry.clientId)?.id === run.id
        )
          turn.userFound = true;
        const at = entry.kind === 'item' ? entry.item?.createdAt : entry.createdAt;
        if (typeof at === 'number') oldest = Math.min(oldest, at);
      }
      if (turn.userFound || missing === 0 || history.older === null || oldest < run.createdAt - CLOCK_SLACK_MS) break;
      before = history.older;
    }
    return turn;
  }

  private replaceLiveRows(
    run: RunRecord,
    target: string,
    parentItemId: string | null,
    saved: Map<string, HistoryEntry>,
  ): void {
    const { sessions, overlay } = this.deps;
    const { revision, removed } = overlay.removeRun(run.sessionId, target, run.id);
    const context = {
      sessionId: run.sessionId,
      parentItemId,
      runOfUser: (clientId: string) => sessions.runOfUserMessage(run.sessionId, clientId),
      commandRow: (commandId: string) => sessions.commandInSession(run.sessionId, commandId),
    };
    const gone: string[] = [];
    for (const entry of removed) {
      const savedEntry = saved.get(entry.item.itemId);
      const row = savedEntry && mapHistoryEntries([savedEntry], context).rows[0];
      if (row)
        this.deps.publishRow(
          run.sessionId,
          'source' in row && row.runId === null ? { ...row, runId: run.id } : row,
          revision,
        );
      else gone.push(itemRowId(parentItemId, entry.item.itemId));
    }
    if (gone.length > 0) this.deps.publishRemoved(run.sessionId, gone, revision);
  }

  forgetSession(sessionId: string): void {
    for (const [key, timer] of this.scheduled) {
      if (!key.startsWith(`${sessionId}\u0000`)) continue;
      if (timer !== 'running') clearTimeout(timer);
      this.scheduled.delete(key);
    }
  }

  close(): void {
    this.closed = true;
    for (const timer of this.scheduled.values()) if (timer !== 'running') clearTimeout(timer);
    this.scheduled.clear();
  }
}
