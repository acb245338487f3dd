import type { CodexThread } from '../../../../lib/protocol/accounts';
import type { ApprovalRequests } from '../approvals';
import { codexSessionToolConfig, type SessionToolServerSpec } from '../../messages/sessionToolSpec';
import type {
  Agent,
  AgentModel,
  AgentOutputSlice,
  AgentRunContext,
  CommandHandle,
  HistoryPage,
  HistoryPageRequest,
  SteerMessage,
} from '../agent';
import { locateCodex } from '../agentLocator';
import { AgentRunError } from '../agentRunError';
import { commandResult, sandboxFailureOf, sandboxFailureText, type SandboxFailureCause } from './codexSandbox';
import { UnannouncedCommands } from './codexUnannounced';
import { conflict, invalidParams, notFound, RuntimeError, unavailable } from '../../errors';
import type { Logger } from '../../log';
import type { Db } from '../../store/database';
import type { ProcessGroupLedger } from '../../process/processGroupLedger';
import { CodexAccounts, type CodexAccountHooks } from './codexAccounts';
import { codexApproval } from './codexApprovals';
import { CodexServers, type ProfileServer } from './codexServers';
import { codexSettingsOf, turnOverrides } from './codexTurnSettings';
import {
  CODEX,
  FileChangeItemSchema,
  ItemNotificationSchema,
  OutputDeltaSchema,
  ThreadItemsListResultSchema,
  ThreadNameUpdatedSchema,
  ThreadResumeResultSchema,
  ThreadStartResultSchema,
  TurnCompletedSchema,
  TurnStartResultSchema,
  type CommandExecutionItem,
} from './codexProtocol';
import { CodexProfiles, type CodexProfile } from './codexProfiles';
import { CodexSessionLinks } from './codexSessionLinks';
import { CodexHistory } from './codexHistory';
import { CodexExactSources } from './codexExactSources';
import { rolloutOfThread, sourceUnavailable, type RolloutFile } from './codexRolloutFiles';
import { copyOwnThreadIntoProfile, ownHomeConversations } from './codexOwnHomeThreads';
import { CodexLiveItems } from './codexLiveItems';
import { CodexTurnRecords } from './codexTurnRecords';
import { CodexSteers } from './codexSteers';
import {
  readSavedCommandOutput,
  SAVED_OUTPUT_LOOKUP_TIMEOUT_MS,
  savedOutputOfItem,
  withinTimeout,
} from './codexSavedOutput';
import { z } from 'zod';
import { codexUserInput } from '../../attachments/agentInput';
import type { AgentCommand, SessionAgentSettings } from '../../../../lib/protocol/agents';
import { CODEX_PROMPT_PREFIX, expandCodexPrompt, promptCommands, readCodexPrompts } from './codexPrompts';

/** ACC-8: one app session continues a Codex thread at a time. */
export const THREAD_TAKEN_MESSAGE = 'This Codex conversation is already open in another session.';
/** SRC-4: why a conversation from the person's own Codex home takes no message in HB Code. */
export const OWN_HOME_READ_ONLY =
  "This conversation is in your own Codex home: HB Code shows it but does not write to it, so your terminal's conversation stays as it is. Continue it in Codex, or start a new session here.";
export interface CodexAgentHooks extends CodexAccountHooks {
  /** UX-8: Codex named the thread of an app session (its thread name, from Codex or its apps). */
  threadNamed?(sessionId: string, name: string): void;
  /** MSG-1: the session tool server the session's thread is given, when the runtime offers one. */
  sessionTools?(sessionId: string): SessionToolServerSpec | null;
}

/** After turn/interrupt, Codex gets this long to end the turn before the run stops waiting for it. */
const INTERRUPT_GRACE_MS = 10_000;

/** One turn in flight: the commands it started and how it ends. */
interface TurnTracker {
  context: AgentRunContext;
  server: ProfileServer;
  threadId: string;
  turnId: string | null;
  /** Settles when the turn ended (completed, interrupted, Codex gone). */
  ended: Promise<unknown>;
  commands: Map<string, CommandHandle>;
  completions: Promise<void>[];
  /** Its item rows (TL-1). */
  live: CodexLiveItems;
  /** File changes Codex announced in this turn, for their approval cards (ACC-4). */
  fileChanges: Map<string, { paths: string[]; diff: string }>;
  /** Steering messages on their way to the model (ACC-6). */
  steers: CodexSteers;
  finished: (outcome: { status: string; error: string | null; exited?: boolean }) => void;
  /** Every command Codex announced (its rows); the model's calls of the others, from raw items (SBX-2). */
  announced: Set<string>;
  unannounced: UnannouncedCommands;
  /** Set when Codex's sandbox could not start one of its commands (SBX-2): the run then says so. */
  sandboxFailure: SandboxFailureCause | null;
}

/** Why a command Codex still ran when its turn ended has no exit code and maybe no output. */
export const UNFINISHED_AT_TURN_END =
  "The command was still running when Codex's turn ended: Codex reports nothing more of it, so its exit code and any later output are unknown.";

/** Waits between reads of Codex's saved turn list until it has a turn's end (about 3 s in all). */
const SAVED_END_DELAYS_MS = [25, 50, 100, 200, 400, 800, 1500];
/** How many ended turns per thread are remembered, so their late events are told apart (TL-3). */
const ENDED_TURNS_KEPT = 8;

/** The turn an event names: its `turnId`, or the turn of turn/started and turn/completed. */
function turnIdOf(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const event = params as { turnId?: unknown; turn?: unknown };
  if (typeof event.turnId === 'string') return event.turnId;
  const turn = event.turn as { id?: unknown } | null | undefined;
  return typeof turn === 'object' && turn !== null && typeof turn.id === 'string' ? turn.id : undefined;
}

/** A turn that failed, as the user sees it (ACC-3): an exit with its stderr tail, or Codex's own error. */
function turnFailure(end: { error: string | null; exited?: boolean }): AgentRunError {
  if (end.exited) return new AgentRunError('codex_exited', end.error ?? 'Codex exited.', null);
  return new AgentRunError('codex_turn_failed', end.error ?? 'The Codex turn failed.', null);
}

/**
 * Real Codex sessions through `codex app-server` (SES-2). Deltas go to the command's artifact
 * through the write-ahead path (OUT-2); `item/completed` hands Codex's bounded aggregate to the
 * completion rules (OUT-4); the turn's closing text is read back through `thread/items/list`.
 * The runtime opens a file inside a Codex home only to list and fingerprint the conversation files
 * the person picks (SRC-1, SRC-3), and never reads a conversation from one itself.
 */
export class CodexAgent implements Agent {
  readonly kind = 'codex' as const;
  private readonly profiles: CodexProfiles;
  private readonly links: CodexSessionLinks;
  private readonly servers: CodexServers;
  /** Turns in flight, per profile and thread. */
  private readonly turns = new Map<string, Map<string, TurnTracker>>();
  private readonly installed: boolean;
  /** Profiles, sign-in, plan limits and saved threads (ACC-1, ACC-7, ACC-8). */
  readonly accounts: CodexAccounts;
  /** What Codex's saved history lacks of a turn: its usage and last plan (TL-1). */
  private readonly turnRecords: CodexTurnRecords;
  /** Each app-server child's reader of saved history (TL-4). */
  private readonly histories = new WeakMap<ProfileServer, CodexHistory>();
  /** Per thread, the turns that ran in it lately, newest last (TL-3). */
  private readonly endedTurns = new Map<string, string[]>();
  /** Conversations opened from their files (SRC-1..SRC-4). */
  readonly sources: CodexExactSources;

  constructor(
    db: Db,
    dataDir: string,
    private readonly approvals: ApprovalRequests,
    private readonly log: Logger,
    env: NodeJS.ProcessEnv = process.env,
    processes?: Pick<ProcessGroupLedger, 'trackerFor'>,
    private readonly hooks: CodexAgentHooks = {},
    /** After SIGTERM an app server gets this long before SIGKILL; the default grace when absent. */
    stopGraceMs?: number,
  ) {
    this.profiles = new CodexProfiles(db, dataDir);
    this.links = new CodexSessionLinks(db);
    this.turnRecords = new CodexTurnRecords(db);
    this.sources = new CodexExactSources(this.profiles, dataDir, env);
    const program = locateCodex(env);
    this.installed = program !== null;
    this.servers = new CodexServers(
      program,
      this.profiles,
      {
        notification: (server, method, params) => this.onNotification(server, method, params),
        request: (server, method, params) => this.onRequest(server, method, params),
        exited: (server, reason) => {
          for (const turn of this.turnsOf(server).values()) {
            this.approvals.expireRun(turn.context.runId, reason);
            turn.finished({ status: 'failed', error: reason, exited: true });
          }
        },
      },
      log,
      env,
      processes,
      stopGraceMs,
    );
    this.accounts = new CodexAccounts(
      this.profiles,
      (profile) => this.startedServer(profile),
      (id) => this.servers.stop(id),
      hooks,
      log,
    );
  }

  available(): boolean {
    return this.installed;
  }

  unavailableReason(): string {
    return 'Codex is not installed: set HBCODE_CODEX_BIN, put `codex` on PATH, or run `node scripts/install-agents.mjs`.';
  }

  private turnsOf(server: ProfileServer): Map<string, TurnTracker> {
    let turns = this.turns.get(server.profileId);
    if (!turns) {
      turns = new Map();
      this.turns.set(server.profileId, turns);
    }
    return turns;
  }

  /** The profile's app-server, started and initialized; a Codex that cannot start says so (ACC-3). */
  private async startedServer(profile: CodexProfile): Promise<ProfileServer> {
    const server = this.servers.serverFor(profile, this.unavailableReason());
    try {
      await server.ready;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new AgentRunError(
        'codex_unavailable',
        reason,
        server.client.exitedReason?.startsWith('Codex could not be started') ? 'install' : null,
      );
    }
    return server;
  }

  /** Which profile's thread a session continues, once it has one. */
  linkedProfile(sessionId: string): string | undefined {
    return this.links.link(sessionId)?.profileId;
  }

  /** ACC-11: the threads of a profile (the first when null) saved for a folder, with the app session that continues each. */
  async savedThreads(
    profileId: string | null,
    cwd: string,
    limit: number,
  ): Promise<(CodexThread & { openInSessionId: string | null })[]> {
    const profile = this.accounts.requireProfile(profileId);
    const threads = await this.accounts.threads(profile.id, cwd, limit);
    return threads.map((t) => ({ ...t, openInSessionId: this.links.sessionOfThread(profile.id, t.id) ?? null }));
  }

  /** ACC-11: the person's own Codex home's conversations of a folder, with the app session that continues each in the profile. */
  ownHomeThreads(
    profileId: string | null,
    cwd: string,
    limit: number,
  ): (RolloutFile & { threadId: string; openInSessionId: string | null })[] {
    const profile = this.accounts.requireProfile(profileId);
    const own = this.sources.ownHome();
    if (!own) return [];
    return ownHomeConversations(own, cwd, limit).flatMap((r) =>
      r.threadId
        ? [{ ...r, threadId: r.threadId, openInSessionId: this.links.sessionOfThread(profile.id, r.threadId) ?? null }]
        : [],
    );
  }

  /**
   * ACC-8: a new session continues a thread that `thread/list` listed in its profile. ACC-11: a
   * thread only the person's own Codex home has is copied into the profile first, and continued there.
   */
  continueThread(sessionId: string, profileId: string | null, threadId: string): void {
    const profile = this.accounts.requireProfile(profileId);
    if (this.links.sessionOfThread(profile.id, threadId)) throw conflict(THREAD_TAKEN_MESSAGE, { threadId });
    const own = this.sources.ownHome();
    if (
      own &&
      !rolloutOfThread({ profileId: profile.id, home: profile.home }, threadId) &&
      rolloutOfThread(own, threadId)
    )
      copyOwnThreadIntoProfile(own, profile.home, threadId);
    this.links.save(sessionId, { profileId: profile.id, threadId });
  }

  /**
   * SRC-2: a new session reads the conversation of a file the person chose. A file in a profile's
   * home is that profile's thread, continued as any; a file of the person's own home is read only
   * (SRC-4), through the session's profile.
   */
  openRollout(sessionId: string, profileId: string | null, rolloutPath: string): void {
    const { file, home, threadId } = this.sources.choose(rolloutPath);
    const profile = this.accounts.requireProfile(home.profileId ?? profileId);
    if (this.links.sessionOfThread(profile.id, threadId)) throw conflict(THREAD_TAKEN_MESSAGE, { threadId });
    this.links.save(sessionId, { profileId: profile.id, threadId, rolloutPath: file });
  }

  /** SRC-2: the session reads its conversation from a file chosen again (the same conversation). */
  chooseRolloutAgain(sessionId: string, rolloutPath: string): void {
    const link = this.links.link(sessionId);
    if (!link?.rolloutPath) throw invalidParams('This session does not read a Codex conversation file.', { sessionId });
    const { file, home, threadId } = this.sources.choose(rolloutPath);
    if (threadId !== link.threadId)
      throw invalidParams(
        "This file holds another Codex conversation. Choose the file of this session's conversation.",
        { path: file },
      );
    if ((home.profileId ?? link.profileId) !== link.profileId)
      throw invalidParams("This file is in another Codex profile's home.", { path: file });
    this.links.moveSource(sessionId, file);
  }

  /** SRC-4: why the session takes no message, when it reads a conversation of the person's own home. */
  readOnlyReason(sessionId: string): string | null {
    const rolloutPath = this.links.link(sessionId)?.rolloutPath;
    return rolloutPath && this.sources.ownerOf(rolloutPath)?.profileId === null ? OWN_HOME_READ_ONLY : null;
  }

  /** The file a session reads its conversation from, and whether it takes messages (SRC-2, SRC-4). */
  sourceOf(sessionId: string): { path: string; readOnly: boolean } | null {
    const rolloutPath = this.links.link(sessionId)?.rolloutPath;
    return rolloutPath ? { path: rolloutPath, readOnly: this.readOnlyReason(sessionId) !== null } : null;
  }

  models(accountKey: string | null): Promise<AgentModel[]> {
    return this.accounts.models(accountKey);
  }

  /** UX-10: the custom prompts of the session's profile home (Codex's app server lists none). */
  async commands(session: { sessionId: string; settings: SessionAgentSettings }): Promise<AgentCommand[]> {
    const profile = this.profiles.profile(
      this.links.link(session.sessionId)?.profileId ?? codexSettingsOf(session.settings).profileId,
    );
    return profile ? promptCommands(await readCodexPrompts(profile.home)) : [];
  }

  /** A message `/prompts:<name> args` becomes the prompt's text, as Codex's CLI sends it (UX-10). */
  private async expandedText(profile: CodexProfile, text: string): Promise<string> {
    if (!text.startsWith(`/${CODEX_PROMPT_PREFIX}`)) return text;
    return expandCodexPrompt(text, await readCodexPrompts(profile.home));
  }

  /** turn/steer with the message's clientUserMessageId; reached once Codex's events show its model was sent it (ACC-6). */
  async steer(sessionId: string, runId: string, message: SteerMessage): Promise<void> {
    const link = this.links.link(sessionId);
    const turn = link && this.turns.get(link.profileId)?.get(link.threadId);
    if (!link || !turn || turn.context.runId !== runId || !turn.turnId)
      throw unavailable('No Codex turn of this session is running.');
    const profile = this.accounts.requireProfile(link.profileId);
    const text = await this.expandedText(profile, message.text);
    const server = this.servers.serverFor(profile, this.unavailableReason());
    // Watched before the call: Codex may record the input before its answer arrives. The saved user
    // message carries the operation id, so its row is the steer run's message row (TL-3).
    turn.steers.add(message);
    try {
      await server.client.call(
        CODEX.turnSteer,
        {
          threadId: link.threadId,
          expectedTurnId: turn.turnId,
          clientUserMessageId: message.operationId,
          input: [{ type: 'text', text, text_elements: [] }],
        },
        z.unknown(),
      );
    } catch (error) {
      turn.steers.remove(message.operationId);
      throw error;
    }
  }

  private onNotification(server: ProfileServer, method: string, params: unknown): void {
    if (method.startsWith('account/')) return this.accounts.onNotification(server, method, params);
    if (method === CODEX.threadNameUpdated) {
      const named = ThreadNameUpdatedSchema.safeParse(params);
      if (named.success && named.data.threadName) this.threadNamed(server, named.data.threadId, named.data.threadName);
      return;
    }
    // Any event of a running turn resets its stall clock (ACC-3).
    const threadId =
      typeof params === 'object' && params !== null && 'threadId' in params
        ? (params as { threadId: unknown }).threadId
        : undefined;
    const own = typeof threadId === 'string' ? this.turnsOf(server).get(threadId) : undefined;
    // TL-3: Codex goes on reporting what an earlier turn of the thread left running (the command
    // a Stop interrupted ends seconds later) while the next turn runs. Those events are not this
    // turn's: taken as its own, they gave the earlier command a second row in this run, and an
    // earlier turn's end would end this one. The earlier run closed its rows when it ended.
    if (own && typeof threadId === 'string' && this.ofEarlierTurn(own, threadId, params)) return;
    own?.context.activity();
    own?.steers.notify(method, params);
    this.forwardToLiveItems(server, threadId, method, params);
    if (method === CODEX.outputDelta) {
      const delta = OutputDeltaSchema.safeParse(params);
      if (!delta.success) return;
      const turn = this.turnsOf(server).get(delta.data.threadId);
      if (!turn) return;
      // Codex may stream a command's output before announcing it: the row starts with its first byte.
      const handle = turn.commands.get(delta.data.itemId) ?? this.startCommand(turn, delta.data.itemId, '');
      // NOTE: the stream's pause request is not passed on. Codex's stdout must be drained at
      // once: when its writer blocks, its own live-delta queue lags and it skips output chunks
      // for good (and every thread of this app-server stalls). The queue this leaves is bounded
      // by Codex's delta rate, which is far below what the write-ahead path ingests (PERF-1).
      handle.output(Buffer.from(delta.data.delta, 'utf8'));
      return;
    }
    if (method === CODEX.itemStarted || method === CODEX.itemCompleted) {
      const parsed = ItemNotificationSchema.safeParse(params);
      if (!parsed.success) return;
      const turn = this.turnsOf(server).get(parsed.data.threadId);
      if (!turn) return;
      const change = FileChangeItemSchema.safeParse(parsed.data.item);
      if (change.success) {
        turn.fileChanges.set(change.data.id, {
          paths: change.data.changes.map((c) => c.path),
          diff: change.data.changes.map((c) => c.diff).join('\n'),
        });
        return;
      }
      if (parsed.data.item.type !== 'commandExecution') return;
      const item = parsed.data.item as CommandExecutionItem;
      const handle = turn.commands.get(item.id) ?? this.startCommand(turn, item.id, item.command);
      if (method === CODEX.itemCompleted) {
        this.completeCommand(turn, handle, item);
      }
      return;
    }
    if (method === CODEX.rawResponseItem) {
      if (typeof threadId === 'string') this.turnsOf(server).get(threadId)?.unannounced.note(params);
      return;
    }
    if (method === CODEX.turnCompleted) {
      const parsed = TurnCompletedSchema.safeParse(params);
      if (!parsed.success) return;
      this.turnsOf(server)
        .get(parsed.data.threadId)
        ?.finished({ status: parsed.data.turn.status, error: parsed.data.turn.error?.message ?? null });
    }
  }

  /** Whether an event of a running turn's thread names another turn: one that ran before it. */
  private ofEarlierTurn(own: TurnTracker, threadId: string, params: unknown): boolean {
    const eventTurn = turnIdOf(params);
    if (eventTurn === undefined) return false;
    // Until turn/start answers, only the turns known to have ended are told apart.
    if (own.turnId === null) return this.endedTurns.get(threadId)?.includes(eventTurn) ?? false;
    return eventTurn !== own.turnId;
  }

  private rememberEndedTurn(threadId: string, turnId: string): void {
    const ended = [...(this.endedTurns.get(threadId) ?? []).filter((id) => id !== turnId), turnId];
    this.endedTurns.set(threadId, ended.slice(-ENDED_TURNS_KEPT));
  }

  /** Every event of a turn's thread, or of a subagent thread it spawned, goes to its live rows (TL-1). */
  private forwardToLiveItems(server: ProfileServer, threadId: unknown, method: string, params: unknown): void {
    if (typeof threadId !== 'string') return;
    for (const turn of this.turnsOf(server).values()) if (turn.live.follows(threadId)) turn.live.notify(method, params);
  }

  private startCommand(turn: TurnTracker, itemId: string, command: string): CommandHandle {
    turn.announced.add(itemId);
    const handle = turn.context.startCommand(itemId, command);
    turn.commands.set(itemId, handle);
    return handle;
  }

  private completeCommand(turn: TurnTracker, handle: CommandHandle, item: CommandExecutionItem): void {
    turn.commands.delete(item.id);
    // A declined command never ran: it printed nothing, and nothing of it is missing (TL-9).
    const aggregate =
      item.status === 'declined'
        ? Buffer.alloc(0)
        : item.aggregatedOutput === null
          ? null
          : Buffer.from(item.aggregatedOutput, 'utf8');
    turn.sandboxFailure ??= sandboxFailureOf(item);
    const { server, threadId, turnId, ended } = turn;
    // OUT-4: what Codex saved of the command, asked for only when the live stream is not proven whole.
    const readSavedOutput =
      item.status === 'declined' || !turnId
        ? undefined
        : () =>
            readSavedCommandOutput(
              (method, params, schema) => server.client.call(method, params, schema),
              { threadId, turnId, itemId: item.id },
              ended,
            );
    turn.completions.push(
      handle.complete({ ...commandResult(item, turn.context.signal.aborted), aggregate, readSavedOutput }),
    );
  }

  /** Every approval kind Codex asks for goes to the app (ACC-4); anything else is refused. */
  private async onRequest(server: ProfileServer, method: string, params: unknown): Promise<unknown> {
    const turns = this.turnsOf(server);
    const approval = codexApproval(method, params, (threadId, itemId) => turns.get(threadId)?.fileChanges.get(itemId));
    if (!approval) throw new Error(`HB Code does not answer ${method}.`);
    const turn = turns.get(approval.threadId);
    if (!turn) return approval.respond({ decision: 'cancel', answers: null });
    const { context } = turn;
    const outcome = await this.approvals.askForAnswers(
      { sessionId: context.sessionId, runId: context.runId, ...approval.ask },
      context.signal,
    );
    context.activity();
    return approval.respond(outcome);
  }

  async run(context: AgentRunContext): Promise<void> {
    const settings = codexSettingsOf(context.settings);
    const readOnly = this.readOnlyReason(context.sessionId);
    if (readOnly) throw new AgentRunError('codex_read_only_source', readOnly, null);
    const profileLink = this.links.link(context.sessionId);
    const profile = this.profiles.profile(profileLink?.profileId ?? settings.profileId);
    if (!profile)
      throw new AgentRunError(
        'codex_profile_missing',
        'The Codex profile of this session was removed. Pick another profile for the session.',
        null,
      );
    const text = await this.expandedText(profile, context.text);
    const server = await this.startedServer(profile);
    await this.accounts.ensureSignedIn(server);
    const threadId = await this.openThread(server, profile, context);
    const turns = this.turnsOf(server);
    if (turns.has(threadId)) throw unavailable('This Codex thread is already running a turn.');

    let finished!: TurnTracker['finished'];
    const outcome = new Promise<Parameters<TurnTracker['finished']>[0]>((resolve) => (finished = resolve));
    const live = new CodexLiveItems(context, threadId, context.cwd, {
      usage: (turnId, usage) => this.turnRecords.saveUsage(context.sessionId, turnId, usage),
      plan: (turnId, plan) => this.turnRecords.savePlan(context.sessionId, turnId, plan),
    });
    const turn: TurnTracker = {
      context,
      server,
      threadId,
      turnId: null,
      ended: outcome,
      commands: new Map(),
      completions: [],
      fileChanges: new Map(),
      steers: new CodexSteers(threadId),
      finished,
      live,
      announced: new Set(),
      unannounced: new UnannouncedCommands(),
      sandboxFailure: null,
    };
    turns.set(threadId, turn);
    let graceTimer: NodeJS.Timeout | undefined;
    const interrupt = () => {
      if (!turn.turnId) return;
      server.client.call(CODEX.turnInterrupt, { threadId, turnId: turn.turnId }, z.unknown()).catch(() => undefined);
      // Shutdown and session delete wait for the run: never longer than this.
      graceTimer ??= setTimeout(() => finished({ status: 'interrupted', error: null }), INTERRUPT_GRACE_MS);
      graceTimer.unref();
    };
    context.signal.addEventListener('abort', interrupt, { once: true });
    try {
      const started = await server.client
        .call(
          CODEX.turnStart,
          {
            threadId,
            clientUserMessageId: context.operationId,
            input: codexUserInput(text, context.attachments),
            // ACC-5: the session's sandbox, approval policy, model and effort, for this turn and on.
            ...turnOverrides(settings, context.cwd),
          },
          TurnStartResultSchema,
        )
        .catch((error: unknown) => {
          if (error instanceof RuntimeError && server.client.exitedReason)
            throw new AgentRunError('codex_exited', server.client.exitedReason, null);
          if (error instanceof RuntimeError) throw new AgentRunError('codex_refused', error.message, null);
          throw error;
        });
      turn.turnId = started.turn.id;
      if (context.signal.aborted) interrupt();
      const end = await outcome;
      // Commands the model ran that Codex never announced get their rows from the model's items.
      for (const item of turn.unannounced.missing((callId) => turn.announced.has(callId))) {
        this.log.info('codex command not announced: its row comes from the model items', {
          sessionId: context.sessionId,
          commandId: item.id,
        });
        this.completeCommand(turn, this.startCommand(turn, item.id, item.command), item);
      }
      // Commands Codex never completed (an interrupted turn, a crashed child, a command still
      // running in Codex's background terminal when the model ended the turn) end here, unproven,
      // and say which (ACC-3): never a bare failure with no reason.
      const unfinished = context.signal.aborted
        ? undefined
        : end.exited
          ? 'Codex exited while the command was running.'
          : UNFINISHED_AT_TURN_END;
      for (const handle of turn.commands.values()) {
        turn.completions.push(
          handle.complete({
            status: context.signal.aborted ? 'cancelled' : 'failed',
            exitCode: null,
            aggregate: null,
            ...(unfinished ? { error: unfinished } : {}),
          }),
        );
      }
      await Promise.all(turn.completions);
      // TL-3: the run's live rows give way to the saved ones as soon as it ends: Codex's history
      // must have the turn's end by then.
      if (!server.client.exitedReason)
        await this.awaitSavedEnd(server, profile, threadId, turn.turnId, end.status, context);
      if (end.status === 'failed' && !context.signal.aborted) throw turnFailure(end);
      if (!server.client.exitedReason) {
        await this.settleFromHistory(server, threadId, turn.turnId, context);
        await this.accounts.readRateLimits(server);
      }
      // The turn went on without its commands: the session says why, with the choices (SBX-2).
      if (turn.sandboxFailure && !context.signal.aborted)
        throw new AgentRunError('codex_sandbox_unavailable', sandboxFailureText(turn.sandboxFailure), null);
    } finally {
      clearTimeout(graceTimer);
      context.signal.removeEventListener('abort', interrupt);
      turns.delete(threadId);
      if (turn.turnId) this.rememberEndedTurn(threadId, turn.turnId);
    }
  }

  private async openThread(server: ProfileServer, profile: CodexProfile, context: AgentRunContext): Promise<string> {
    const link = this.links.link(context.sessionId);
    if (link) {
      await this.loadThread(server, link.threadId, context.cwd, context.sessionId, link.rolloutPath ?? null);
      return link.threadId;
    }
    // experimentalRawEvents: the model's own calls and outputs, for commands Codex does not announce (SBX-2).
    const started = await server.client.call(
      CODEX.threadStart,
      { cwd: context.cwd, experimentalRawEvents: true, ...this.threadConfig(context.sessionId) },
      ThreadStartResultSchema,
    );
    this.links.save(context.sessionId, { profileId: profile.id, threadId: started.thread.id });
    server.loaded.add(started.thread.id);
    return started.thread.id;
  }

  private async awaitSavedEnd(
    server: ProfileServer,
    profile: CodexProfile,
    threadId: string,
    turnId: string,
    status: string,
    context: AgentRunContext,
  ): Promise<void> {
    const reads = await this.historyOf(server).awaitSavedEnd(threadId, turnId, status, SAVED_END_DELAYS_MS);
    if (reads > 1)
      this.log.info('codex saved the turn end late', {
        sessionId: context.sessionId,
        profileId: profile.id,
        turnId,
        status,
        reads,
      });
  }

  private historyOf(server: ProfileServer): CodexHistory {
    let history = this.histories.get(server);
    if (!history) {
      history = new CodexHistory(
        (method, params, schema) => server.client.call(method, params, schema),
        (session, turnId) => this.turnRecords.read(session, turnId),
      );
      this.histories.set(server, history);
    }
    return history;
  }

  /**
   * Codex reads a thread's history only once this child has resumed it; a thread read from a file
   * the person chose is resumed by that path too (Codex checks it is the thread's rollout, SRC-2).
   * The session's tools (MSG-1) come with the thread's config.
   */
  private async loadThread(
    server: ProfileServer,
    threadId: string,
    cwd: string,
    sessionId: string,
    rolloutPath: string | null = null,
  ): Promise<void> {
    if (server.loaded.has(threadId)) return;
    const resumed = await server.client.call(
      CODEX.threadResume,
      { threadId, cwd, ...this.threadConfig(sessionId), ...(rolloutPath ? { path: rolloutPath } : {}) },
      ThreadResumeResultSchema,
    );
    server.loaded.add(threadId);
    // A name given while no child of ours had the thread open (in Codex's own apps) comes with it.
    if (resumed.thread.name) this.threadNamed(server, threadId, resumed.thread.name);
  }

  /** MSG-1: the thread's own configuration: the session tool server, when the runtime offers one. */
  private threadConfig(sessionId: string): { config?: Record<string, unknown> } {
    const tools = this.hooks.sessionTools?.(sessionId);
    return tools ? { config: codexSessionToolConfig(tools) } : {};
  }

  /** UX-8: Codex's title of a thread is its session's agent title. */
  private threadNamed(server: ProfileServer, threadId: string, name: string): void {
    const sessionId = this.links.sessionOfThread(server.profileId, threadId);
    if (sessionId) this.hooks.threadNamed?.(sessionId, name);
  }

  /** The turn's closing text, read back through Codex's own history (thread/items/list). */
  private async settleFromHistory(
    server: ProfileServer,
    threadId: string,
    turnId: string,
    context: AgentRunContext,
  ): Promise<void> {
    const texts: string[] = [];
    let cursor: string | null = null;
    do {
      const page: z.output<typeof ThreadItemsListResultSchema> = await server.client.call(
        CODEX.threadItemsList,
        { threadId, turnId, ...(cursor ? { cursor } : {}) },
        ThreadItemsListResultSchema,
      );
      for (const entry of page.data) {
        if (entry.item.type === 'agentMessage' && 'text' in entry.item && typeof entry.item.text === 'string')
          texts.push(entry.item.text);
      }
      cursor = page.nextCursor;
    } while (cursor);
    if (texts.length > 0) context.settle(texts.join('\n\n'));
  }

  /** The saved timeline of a session's Codex thread, or of a subagent thread in it (TL-4). */
  async historyPage(request: HistoryPageRequest): Promise<HistoryPage> {
    const read = async (inner: HistoryPageRequest) => {
      const { history, threadId } = await this.savedThread(request.sessionId, request.cwd);
      const thread = request.parentItemId ? await history.subagentThread(threadId, request.parentItemId) : threadId;
      return history.page({ ...inner, threadId: thread });
    };
    const rolloutPath = this.links.link(request.sessionId)?.rolloutPath;
    return rolloutPath ? this.sources.page(rolloutPath, request, read) : read(request);
  }

  async readItemText(request: {
    sessionId: string;
    cwd: string;
    parentItemId: string | null;
    itemId: string;
    field: string;
    offset: number;
    length: number;
  }): Promise<AgentOutputSlice> {
    const { history, threadId } = await this.savedThread(request.sessionId, request.cwd);
    const thread = request.parentItemId ? await history.subagentThread(threadId, request.parentItemId) : threadId;
    return history.itemText({ ...request, threadId: thread });
  }

  /** What Codex saved of a command, found in the thread by its item id (OUT-4, after a restart). */
  async readSavedOutput(sessionId: string, cwd: string, commandId: string): Promise<Buffer | null> {
    const find = async () => {
      const { history, threadId } = await this.savedThread(sessionId, cwd);
      return savedOutputOfItem(await history.findItem(threadId, commandId));
    };
    return withinTimeout(find(), 'the saved-output lookup', SAVED_OUTPUT_LOOKUP_TIMEOUT_MS);
  }

  private async savedThread(sessionId: string, cwd: string): Promise<{ history: CodexHistory; threadId: string }> {
    const link = this.links.link(sessionId);
    const profile = link && this.profiles.profile(link.profileId);
    if (!link || !profile) throw notFound('This session has no Codex conversation yet.');
    const own = link.rolloutPath ? this.sources.ownerOf(link.rolloutPath) : undefined;
    if (link.rolloutPath && !own)
      throw sourceUnavailable(link.rolloutPath, 'it is no longer in a Codex home of this computer');
    // SRC-4: the person's own conversation is read by an app-server on their own home.
    const server = await this.startedServer(own && own.profileId === null ? this.sources.readerOf(own.home) : profile);
    await this.loadThread(server, link.threadId, cwd, sessionId, link.rolloutPath ?? null);
    return { history: this.historyOf(server), threadId: link.threadId };
  }

  close(): Promise<void> {
    return this.servers.close();
  }
}
