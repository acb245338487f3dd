import type { AgentKind, Session, TimelineRow } from '../../../lib/protocol/rows';
import { agentTextOf } from '../messages/sessionMessageText';
import type { SessionAgentSettings } from '../../../lib/protocol/agents';
import type { Agent, AgentAttachment } from '../agents/agent';
import { AgentRunError, type AgentFailure } from '../agents/agentRunError';
import { StallWatch } from './stallWatch';
import type { Logger } from '../log';
import type { CommandOutputStore } from '../output/commandOutputStore';
import { SavedCopyReads } from '../output/savedCopyReads';
import type { ChatSendLedger } from '../sendLedger/chatSend';
import type { RecordedProcessGroup } from '../process/processGroupLedger';
import { StartQueue } from '../process/startQueue';
import type { LiveItems } from './liveItems';
import type { Reconciler } from './reconcile';
import {
  INTERRUPTED_AND_STOPPED_MESSAGE,
  INTERRUPTED_MESSAGE,
  NOT_RUN_AT_RESTART_MESSAGE,
  commandRowKey,
  recordCommand,
} from './commandRecorder';
import { RowThrottle } from './rowThrottle';
import { messageRowOf, settledRowOf, type RunRecord, type SessionStore } from './sessionStore';

type AbortReason = 'cancel' | 'delete' | 'shutdown';

interface ActiveRun {
  runId: string;
  abort: AbortController;
  done: Promise<void>;
  /** Set once the agent's turn is under way: steering goes to it (ACC-6). */
  agent: Agent | null;
  stall: StallWatch | null;
  /** Steering messages the agent acknowledged whose delivery is not proven yet (ACC-6). */
  steers: Set<string>;
}

interface SessionQueue {
  pending: string[];
  active: ActiveRun | null;
}

export interface RunSchedulerDeps {
  sessions: SessionStore;
  outputs: CommandOutputStore;
  outbox: ChatSendLedger;
  agents: ReadonlyMap<AgentKind, Agent>;
  /** Where the session works: its worktree, else its project folder. */
  sessionDirectory: (session: Session) => string | undefined;
  publish: (sessionId: string, row: TimelineRow) => void;
  /** The live overlay behind `context.item` (TL-3). */
  liveItems: LiveItems;
  reconciler: Reconciler;
  log: Logger;
  /** The session's agent settings, read at the start of each turn (ACC-5). */
  settings: (sessionId: string) => SessionAgentSettings;
  /** A running turn with no agent event for this long shows as stalled (ACC-3). */
  stallMs: number;
  /** The stored attachments of a run (ATT-2), handed to its agent. */
  attachmentsOf?: (runId: string) => AgentAttachment[];
}

const STEER_LOST_TO_RESTART = 'Not delivered: the runtime stopped before the agent passed this message to its model.';
const STEER_LOST_TO_TURN_END = 'Not delivered: the turn ended before the agent passed this message to its model.';

/** The turn a steer was given to is still the session's running one. */
const queueStillRuns = (queue: SessionQueue | undefined, active: ActiveRun) =>
  queue?.active === active && active.agent !== null;

/** A failure that is not an AgentRunError still says what happened, never a bare "failed" (ACC-3). */
function failureOf(error: unknown): AgentFailure {
  if (error instanceof AgentRunError) return error.failure;
  const message = error instanceof Error && error.message ? error.message : String(error);
  return { code: 'agent_failed', message, action: null };
}

/**
 * Runs each session's messages one at a time, in the order they were accepted, through the
 * session's agent. Owns the abort controllers behind run.cancel (SES-5), session delete and
 * shutdown, and publishes live rows through one throttle (SES-4).
 */
export class RunScheduler {
  private readonly queues = new Map<string, SessionQueue>();
  private readonly rows: RowThrottle;
  /**
   * Runs start one per event-loop turn (PERF-8): starting one writes its rows and creates its
   * output file, and 200 sessions sent a message at once would otherwise do all of that in one
   * stretch while every other call waits.
   */
  private readonly runStarts = new StartQueue();
  /** Agents' saved copies of outputs that settled unproven, read one at a time (OUT-4). */
  private readonly savedCopies: SavedCopyReads;
  private stopping = false;

  constructor(private readonly deps: RunSchedulerDeps) {
    this.rows = new RowThrottle((key) => this.publishCommandRow(key));
    this.savedCopies = new SavedCopyReads(deps.outputs, deps.log);
  }

  private publishCommandRow(key: string): void {
    const [sessionId, runId, commandId] = key.split('\u0000') as [string, string, string];
    const row = this.deps.sessions.commandRow(runId, commandId);
    if (row) this.deps.publish(sessionId, row);
  }

  private publishMessage(runId: string): void {
    const run = this.deps.sessions.run(runId);
    if (run) this.deps.publish(run.sessionId, this.withStall(messageRowOf(run)));
  }

  /** A message row of a running turn carries `stalledSince` while the turn is stalled (ACC-3). */
  withStall<R extends TimelineRow>(row: R): R {
    if (row.kind !== 'message' || row.state !== 'running') return row;
    const since = this.queues.get(row.sessionId)?.active?.stall?.stalledSince;
    return since === null || since === undefined ? row : { ...row, stalledSince: since };
  }

  private queueOf(sessionId: string): SessionQueue {
    let queue = this.queues.get(sessionId);
    if (!queue) {
      queue = { pending: [], active: null };
      this.queues.set(sessionId, queue);
    }
    return queue;
  }

  /**
   * Start-up: runs that were running when the runtime died failed, saying whether their processes
   * had to be stopped (`stoppedGroups`, SES-5); accepted ones are delivered now.
   */
  recoverAfterRestart(
    stoppedGroups: readonly RecordedProcessGroup[],
    waitedOnPerson: readonly { runId: string; itemId: string }[] = [],
  ): void {
    const { sessions, outputs } = this.deps;
    const key = (runId: string | null, commandId: string | null) => `${runId}\u0000${commandId}`;
    const stopped = new Set(stoppedGroups.map((group) => key(group.runId, group.commandId)));
    const neverRan = new Set(waitedOnPerson.map((waited) => key(waited.runId, waited.itemId)));
    for (const command of sessions.runningCommands()) {
      outputs.closeWithoutAggregate(command);
      // TL-9: a command still waiting for the person's approval never ran: not run, not failed.
      if (neverRan.has(key(command.runId, command.commandId))) {
        sessions.endCommand(command.runId, command.commandId, 'cancelled', null, NOT_RUN_AT_RESTART_MESSAGE);
        continue;
      }
      const message = stopped.has(key(command.runId, command.commandId))
        ? INTERRUPTED_AND_STOPPED_MESSAGE
        : INTERRUPTED_MESSAGE;
      sessions.endCommand(command.runId, command.commandId, 'failed', null, message);
    }
    for (const run of sessions.runsInState('running')) {
      sessions.setRunState(run.id, 'failed');
      sessions.setRunFailure(run.id, {
        code: 'runtime_restarted',
        message: 'The runtime stopped while this turn ran. Send the message again to retry.',
        action: null,
      });
    }
    // ACC-6: a steering message whose delivery was not proven died with its turn.
    for (const run of sessions.unfinishedSteers()) this.steerLost(run.id, STEER_LOST_TO_RESTART);
    for (const runId of this.deps.outbox.undelivered()) {
      const run = sessions.run(runId);
      if (run) this.enqueue(run);
    }
  }

  /**
   * OUT-4: saved-copy reads a stopped runtime queued and never ran, read now in the background
   * (the agent is started for them). Each row is pushed again when its copy changed it.
   */
  resumeSavedCopyReads(): void {
    const { sessions, agents, sessionDirectory } = this.deps;
    this.savedCopies.resumeAfterRestart(
      (row) => {
        const session = sessions.session(row.sessionId);
        const agent = session && agents.get(session.agent);
        const cwd = session && sessionDirectory(session);
        const readSavedOutput = agent?.readSavedOutput?.bind(agent);
        if (!readSavedOutput || !cwd) return null;
        return () => readSavedOutput(row.sessionId, cwd, row.commandId);
      },
      (row, state) => {
        if (!state.sourceIncomplete || state.generation !== row.generation)
          this.rows.touch(commandRowKey(row.sessionId, row.runId, row.commandId), true);
      },
    );
  }

  enqueue(run: RunRecord): void {
    if (this.stopping) return;
    const queue = this.queueOf(run.sessionId);
    if (queue.active?.runId === run.id || queue.pending.includes(run.id)) return;
    queue.pending.push(run.id);
    this.publishMessage(run.id);
    this.startNext(run.sessionId);
  }

  private startNext(sessionId: string): void {
    const queue = this.queueOf(sessionId);
    if (queue.active || this.stopping) return;
    const runId = queue.pending.shift();
    if (!runId) return;
    const abort = new AbortController();
    const active: ActiveRun = { runId, abort, done: Promise.resolve(), agent: null, stall: null, steers: new Set() };
    queue.active = active;
    active.done = this.runStarts
      .run(() => true, abort.signal)
      .catch(() => false)
      .then((turn) => (turn ? this.execute(active, abort.signal) : this.dropUnstarted(runId, abort.signal.reason)))
      .catch((error: unknown) => {
        this.deps.log.error('run failed', { runId, reason: error instanceof Error ? error.message : String(error) });
      })
      .finally(() => {
        if (queue.active === active) queue.active = null;
        this.startNext(sessionId);
      });
  }

  /** A run aborted while it waited for its turn never started: cancel records it; shutdown leaves it queued. */
  private dropUnstarted(runId: string, reason: unknown): void {
    if (reason !== ('cancel' satisfies AbortReason) || !this.deps.sessions.run(runId)) return;
    this.deps.sessions.db.transaction(() => {
      this.deps.sessions.setRunState(runId, 'cancelled');
      this.deps.outbox.delivered(runId);
    })();
    this.publishMessage(runId);
  }

  private async execute(active: ActiveRun, signal: AbortSignal): Promise<void> {
    const { runId } = active;
    const { sessions, outbox } = this.deps;
    const run = sessions.run(runId);
    if (!run || run.state !== 'queued') return;
    const session = sessions.session(run.sessionId);
    const agent = session && this.deps.agents.get(session.agent);
    const cwd = session && this.deps.sessionDirectory(session);
    sessions.db.transaction(() => {
      sessions.setRunState(runId, agent && cwd ? 'running' : 'failed');
      outbox.delivered(runId);
    })();
    this.publishMessage(runId);
    if (!session || !agent || !cwd) {
      this.deps.log.warn('run has no agent or project folder', { runId });
      if (session)
        sessions.setRunFailure(runId, {
          code: 'agent_unavailable',
          message: agent
            ? "The session's project folder is not open in this runtime."
            : `The ${session.agent} agent is not available.`,
          action: agent ? null : 'install',
        });
      this.publishMessage(runId);
      return;
    }
    let state: 'done' | 'failed' | 'cancelled' = 'done';
    let ended = false;
    active.agent = agent;
    const stall = new StallWatch(this.deps.stallMs, () => this.publishMessage(runId));
    active.stall = stall;
    try {
      await agent.run({
        runId,
        sessionId: run.sessionId,
        operationId: run.operationId,
        text: agentTextOf(run),
        cwd,
        signal,
        startCommand: (commandId, command) =>
          recordCommand(
            { sessions, outputs: this.deps.outputs, rows: this.rows, savedCopies: this.savedCopies },
            { sessionId: run.sessionId, runId, signal },
            commandId,
            command,
          ),
        startHistoryCommand: (commandId, command, pointer) => {
          sessions.insertHistoryCommand(runId, commandId, run.sessionId, command, pointer);
          this.rows.touch(commandRowKey(run.sessionId, runId, commandId), true);
        },
        recordHistoryCommand: (commandId, command, result, pointer) => {
          sessions.insertHistoryCommand(runId, commandId, run.sessionId, command, pointer);
          sessions.endCommand(runId, commandId, result.status, result.exitCode, result.error ?? null);
          this.rows.touch(commandRowKey(run.sessionId, runId, commandId), true);
        },
        // An item reported after its run ended would never be reconciled: it is dropped. Any item is activity.
        item: (item) => {
          stall.touch();
          if (!ended) this.deps.liveItems.item(run.sessionId, runId, item);
        },
        activity: () => stall.touch(),
        settings: this.deps.settings(run.sessionId),
        attachments: this.deps.attachmentsOf?.(runId),
        settle: (text) => {
          sessions.settleRun(runId, text);
          // An agent whose history the timeline pages shows its closing text as its own row (TL-3);
          // a settled row would repeat it on every client that saw the turn live.
          if (!agent.historyPage)
            this.deps.publish(
              run.sessionId,
              settledRowOf(run.sessionId, { run_id: runId, text, created_at: Date.now() }),
            );
        },
      });
      if (signal.aborted) state = 'cancelled';
    } catch (error) {
      state = signal.aborted ? 'cancelled' : 'failed';
      if (!signal.aborted) {
        if (sessions.run(runId)) sessions.setRunFailure(runId, failureOf(error));
        throw error;
      }
    } finally {
      ended = true;
      // ACC-6: a steering message the turn ended without passing on was not delivered.
      for (const steerId of active.steers) this.steerLost(steerId, STEER_LOST_TO_TURN_END);
      active.steers.clear();
      stall.stop();
      active.stall = null;
      active.agent = null;
      if (sessions.run(runId)) {
        sessions.setRunState(runId, state);
        this.publishMessage(runId);
        // TL-3: the last live states and the pending cleanup are written before the run is forgotten.
        this.deps.liveItems.flushRun(run.sessionId, runId);
        this.deps.reconciler.runEnded(run.sessionId, runId);
      }
    }
  }

  /**
   * Gives a message's text to the session's running turn (ACC-6). False when no turn is running or
   * its agent refused it: the caller queues the message instead. True once the agent acknowledged
   * it and that is stored; the row says delivered only when the agent's events show its model was
   * sent it, and "not delivered" when the turn ends or the runtime stops first.
   */
  async steer(run: RunRecord): Promise<boolean> {
    const active = this.queues.get(run.sessionId)?.active;
    const agent = active?.agent;
    if (!active || !agent?.steer) return false;
    const { sessions, outbox } = this.deps;
    sessions.setSteerState(run.id, 'sending');
    this.publishMessage(run.id);
    let acknowledged = false;
    let reachedEarly = false;
    const reached = () => {
      if (!acknowledged) reachedEarly = true;
      else if (active.steers.delete(run.id)) this.steerDelivered(run.id);
    };
    try {
      await agent.steer(run.sessionId, active.runId, {
        text: run.text,
        runId: run.id,
        operationId: run.operationId,
        reached,
      });
    } catch (error) {
      this.deps.log.warn('steer refused; the message is queued', {
        sessionId: run.sessionId,
        reason: error instanceof Error ? error.message : String(error),
      });
      sessions.setSteerState(run.id, null);
      return false;
    }
    acknowledged = true;
    sessions.db.transaction(() => {
      sessions.setSteerState(run.id, 'accepted');
      outbox.delivered(run.id);
    })();
    active.stall?.touch();
    if (reachedEarly) this.steerDelivered(run.id);
    else if (queueStillRuns(this.queues.get(run.sessionId), active)) active.steers.add(run.id);
    else this.steerLost(run.id, STEER_LOST_TO_TURN_END);
    if (!reachedEarly) this.publishMessage(run.id);
    return true;
  }

  private steerDelivered(runId: string): void {
    this.deps.sessions.db.transaction(() => {
      this.deps.sessions.setSteerState(runId, 'delivered');
      this.deps.sessions.setRunState(runId, 'done');
    })();
    this.publishMessage(runId);
  }

  private steerLost(runId: string, message: string): void {
    const { sessions, outbox } = this.deps;
    if (!sessions.run(runId)) return;
    sessions.db.transaction(() => {
      sessions.setSteerState(runId, 'lost');
      sessions.setRunState(runId, 'failed');
      sessions.setRunFailure(runId, { code: 'steer_not_delivered', message, action: 'resend' });
      outbox.delivered(runId);
    })();
    this.publishMessage(runId);
  }

  /** run.cancel (SES-5): stops the running command, or drops a run that has not started. */
  cancel(sessionId: string, runId: string): boolean {
    const queue = this.queues.get(sessionId);
    if (queue?.active?.runId === runId) {
      queue.active.abort.abort('cancel' satisfies AbortReason);
      return true;
    }
    const index = queue?.pending.indexOf(runId) ?? -1;
    if (queue && index >= 0) {
      queue.pending.splice(index, 1);
      this.deps.sessions.db.transaction(() => {
        this.deps.sessions.setRunState(runId, 'cancelled');
        this.deps.outbox.delivered(runId);
      })();
      this.publishMessage(runId);
      return true;
    }
    return false;
  }

  /** Stops everything a session runs and forgets it (session delete). */
  async stopSession(sessionId: string): Promise<void> {
    const queue = this.queues.get(sessionId);
    if (!queue) return;
    queue.pending = [];
    if (queue.active) {
      queue.active.abort.abort('delete' satisfies AbortReason);
      await queue.active.done;
    }
    this.queues.delete(sessionId);
    this.rows.forget((key) => key.startsWith(sessionId + '\u0000'));
  }

  /** Shutdown: running commands are stopped and recorded as such; queued runs stay queued. */
  async shutdown(): Promise<void> {
    this.stopping = true;
    const active = [...this.queues.values()].flatMap((q) => (q.active ? [q.active] : []));
    for (const run of active) run.abort.abort('shutdown' satisfies AbortReason);
    await Promise.all(active.map((run) => run.done));
    this.rows.flush();
  }

  /** Whether the session has a run running or waiting. */
  hasWork(sessionId: string): boolean {
    const queue = this.queues.get(sessionId);
    return queue !== undefined && (queue.active !== null || queue.pending.length > 0);
  }

  /** The run the session's agent is running, if any: the turn a tool call of that session belongs to (MSG-3). */
  runningRunOf(sessionId: string): string | null {
    return this.queues.get(sessionId)?.active?.runId ?? null;
  }

  /** Tells every device a run's message row changed outside a turn (a message's approval, MSG-4). */
  publishRun(runId: string): void {
    this.publishMessage(runId);
  }

  isActive(sessionId: string, runId: string): boolean {
    return this.queues.get(sessionId)?.active?.runId === runId;
  }

  /** The run's agent asks its person, or got its answer (ACC-3, ACC-4): a turn waiting on its person is not stalled. */
  waitingOnPerson(sessionId: string, runId: string, waiting: boolean): void {
    const active = this.queues.get(sessionId)?.active;
    if (active?.runId !== runId || !active.stall) return;
    if (waiting) active.stall.hold();
    else active.stall.release();
  }
}
