import type { ApprovalRequests } from '../approvals';
import type { Agent, AgentRunContext, CommandHandle, CommandResult } from '../agent';
import { locateCodex, type AgentProgram } from '../agentLocator';
import { unavailable } from '../../errors';
import type { Logger } from '../../log';
import type { Db } from '../../store/database';
import { childEnvironment } from '../../process/childEnvironment';
import type { ProcessGroupLedger } from '../../process/processGroupLedger';
import { AppServerClient } from './appServerClient';
import {
  ApprovalRequestSchema,
  CODEX,
  ItemNotificationSchema,
  OutputDeltaSchema,
  ThreadItemsListResultSchema,
  ThreadStartResultSchema,
  TurnCompletedSchema,
  TurnStartResultSchema,
  type CommandExecutionItem,
} from './codexProtocol';
import { CodexProfiles, CodexSessionLinks, configOverrides, profileConfig, type CodexProfile } from './codexProfiles';
import { z } from 'zod';
import { codexUserInput } from '../../attachments/agentInput';

const CLIENT_INFO = { name: 'hbcode', title: 'HB Code Web', version: '0.1.0' };
/** After turn/interrupt, Codex gets this long to end the turn before the run stops waiting for it. */
const INTERRUPT_GRACE_MS = 10_000;

/** One turn in flight: the commands it started and how it ends. */
interface TurnTracker {
  context: AgentRunContext;
  turnId: string | null;
  commands: Map<string, CommandHandle>;
  completions: Promise<void>[];
  finished: (outcome: { status: string; error: string | null }) => void;
}

/** One app-server child per profile, started on first use. */
interface ProfileServer {
  client: AppServerClient;
  ready: Promise<void>;
  /** Threads this child has started or resumed. */
  loaded: Set<string>;
  turns: Map<string, TurnTracker>;
}

/** Codex's own status of a command mapped onto a command row's status. */
function commandResult(item: CommandExecutionItem, cancelled: boolean): Omit<CommandResult, 'aggregate'> {
  if (cancelled) return { status: 'cancelled', exitCode: item.exitCode };
  if (item.status === 'declined') return { status: 'cancelled', exitCode: null, error: 'The command was declined.' };
  if (item.status === 'failed' && item.exitCode === null) return { status: 'failed', exitCode: null, error: 'Codex could not run the command.' };
  return { status: 'exited', exitCode: item.exitCode };
}

/**
 * Real Codex sessions through `codex app-server` (SES-2). Deltas go to the command's artifact
 * through the write-ahead path (OUT-2); `item/completed` hands Codex's bounded aggregate to the
 * completion rules (OUT-4); the turn's closing text is read back through `thread/items/list`.
 * The runtime never opens a file inside a Codex home.
 */
export class CodexAgent implements Agent {
  readonly kind = 'codex' as const;
  private readonly profiles: CodexProfiles;
  private readonly links: CodexSessionLinks;
  private readonly servers = new Map<string, ProfileServer>();
  private readonly program: AgentProgram | null;

  constructor(
    db: Db,
    dataDir: string,
    private readonly approvals: ApprovalRequests,
    private readonly log: Logger,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly processes?: Pick<ProcessGroupLedger, 'trackerFor'>,
  ) {
    this.profiles = new CodexProfiles(db, dataDir);
    this.links = new CodexSessionLinks(db);
    this.program = locateCodex(env);
  }

  available(): boolean {
    return this.program !== null;
  }

  unavailableReason(): string {
    return 'Codex is not installed: set HBCODE_CODEX_BIN, put `codex` on PATH, or run `node scripts/install-agents.mjs`.';
  }

  private serverFor(profile: CodexProfile): ProfileServer {
    const existing = this.servers.get(profile.id);
    if (existing && !existing.client.exitedReason) return existing;
    if (!this.program) throw unavailable(this.unavailableReason());
    this.profiles.prepareHome(profile);
    const overrides = configOverrides(profileConfig(this.env.HBCODE_CODEX_CONFIG_TOML));
    const env = childEnvironment({ CODEX_HOME: profile.home }, this.env);
    const turns = new Map<string, TurnTracker>();
    // The handlers run on the child's output, never before `server` below is assigned.
    const client = new AppServerClient(
      { file: this.program.file, args: [...this.program.args, ...overrides] },
      env,
      {
        notification: (method, params) => this.onNotification(server, method, params),
        request: (method, params) => this.onRequest(server, method, params),
        exited: (reason) => {
          for (const turn of turns.values()) turn.finished({ status: 'failed', error: reason });
        },
      },
      this.log,
      this.processes?.trackerFor({ purpose: 'codex app-server' }),
    );
    const server: ProfileServer = { client, ready: Promise.resolve(), loaded: new Set(), turns };
    server.ready = server.client
      .call(CODEX.initialize, { clientInfo: CLIENT_INFO, capabilities: { experimentalApi: true, requestAttestation: false } }, z.unknown())
      .then(() => server.client.notify(CODEX.initialized));
    this.servers.set(profile.id, server);
    return server;
  }

  private onNotification(server: ProfileServer, method: string, params: unknown): void {
    if (method === CODEX.outputDelta) {
      const delta = OutputDeltaSchema.safeParse(params);
      if (!delta.success) return;
      const turn = server.turns.get(delta.data.threadId);
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
      if (!parsed.success || parsed.data.item.type !== 'commandExecution') return;
      const turn = server.turns.get(parsed.data.threadId);
      if (!turn) return;
      const item = parsed.data.item as CommandExecutionItem;
      const handle = turn.commands.get(item.id) ?? this.startCommand(turn, item.id, item.command);
      if (method === CODEX.itemCompleted) {
        turn.commands.delete(item.id);
        const aggregate = item.aggregatedOutput === null ? null : Buffer.from(item.aggregatedOutput, 'utf8');
        turn.completions.push(handle.complete({ ...commandResult(item, turn.context.signal.aborted), aggregate }));
      }
      return;
    }
    if (method === CODEX.turnCompleted) {
      const parsed = TurnCompletedSchema.safeParse(params);
      if (!parsed.success) return;
      server.turns.get(parsed.data.threadId)?.finished({ status: parsed.data.turn.status, error: parsed.data.turn.error?.message ?? null });
    }
  }

  private startCommand(turn: TurnTracker, itemId: string, command: string): CommandHandle {
    const handle = turn.context.startCommand(itemId, command);
    turn.commands.set(itemId, handle);
    return handle;
  }

  private async onRequest(server: ProfileServer, method: string, params: unknown): Promise<unknown> {
    // File changes need no approval in the profiles the runtime writes; decline any that asks.
    if (method === CODEX.fileChangeApproval) return { decision: 'decline' };
    if (method !== CODEX.commandApproval) throw new Error(`HB Code does not answer ${method}.`);
    const parsed = ApprovalRequestSchema.safeParse(params);
    const turn = parsed.success ? server.turns.get(parsed.data.threadId) : undefined;
    if (!parsed.success || !turn) return { decision: 'decline' };
    const { context } = turn;
    const decision = await this.approvals.ask(
      { sessionId: context.sessionId, runId: context.runId, command: parsed.data.command ?? '', reason: parsed.data.reason ?? null },
      context.signal,
    );
    return { decision };
  }

  async run(context: AgentRunContext): Promise<void> {
    const profileLink = this.links.link(context.sessionId);
    const profile = profileLink ? { id: profileLink.profileId, home: this.profiles.homeOf(profileLink.profileId) } : this.profiles.defaultProfile();
    const server = this.serverFor(profile);
    await server.ready;
    const threadId = await this.openThread(server, profile, context);
    if (server.turns.has(threadId)) throw unavailable('This Codex thread is already running a turn.');

    let finished!: TurnTracker['finished'];
    const outcome = new Promise<{ status: string; error: string | null }>((resolve) => (finished = resolve));
    const turn: TurnTracker = { context, turnId: null, commands: new Map(), completions: [], finished };
    server.turns.set(threadId, turn);
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
      const started = await server.client.call(
        CODEX.turnStart,
        { threadId, clientUserMessageId: context.operationId, input: codexUserInput(context.text, context.attachments) },
        TurnStartResultSchema,
      );
      turn.turnId = started.turn.id;
      if (context.signal.aborted) interrupt();
      const end = await outcome;
      // Commands Codex never completed (an interrupted turn, a crashed child) end here, unproven.
      for (const handle of turn.commands.values()) {
        turn.completions.push(handle.complete({ status: context.signal.aborted ? 'cancelled' : 'failed', exitCode: null, aggregate: null }));
      }
      await Promise.all(turn.completions);
      if (end.status === 'failed' && !context.signal.aborted) throw unavailable(end.error ?? 'The Codex turn failed.');
      if (!server.client.exitedReason) await this.settleFromHistory(server, threadId, turn.turnId, context);
    } finally {
      clearTimeout(graceTimer);
      context.signal.removeEventListener('abort', interrupt);
      server.turns.delete(threadId);
    }
  }

  private async openThread(server: ProfileServer, profile: CodexProfile, context: AgentRunContext): Promise<string> {
    const link = this.links.link(context.sessionId);
    if (link) {
      if (!server.loaded.has(link.threadId)) {
        await server.client.call(CODEX.threadResume, { threadId: link.threadId, cwd: context.cwd }, z.unknown());
        server.loaded.add(link.threadId);
      }
      return link.threadId;
    }
    const started = await server.client.call(CODEX.threadStart, { cwd: context.cwd }, ThreadStartResultSchema);
    this.links.save(context.sessionId, { profileId: profile.id, threadId: started.thread.id });
    server.loaded.add(started.thread.id);
    return started.thread.id;
  }

  /** The turn's closing text, read back through Codex's own history (thread/items/list). */
  private async settleFromHistory(server: ProfileServer, threadId: string, turnId: string, context: AgentRunContext): Promise<void> {
    const texts: string[] = [];
    let cursor: string | null = null;
    do {
      const page: z.output<typeof ThreadItemsListResultSchema> = await server.client.call(
        CODEX.threadItemsList,
        { threadId, turnId, ...(cursor ? { cursor } : {}) },
        ThreadItemsListResultSchema,
      );
      for (const entry of page.data) {
        if (entry.item.type === 'agentMessage' && 'text' in entry.item && typeof entry.item.text === 'string') texts.push(entry.item.text);
      }
      cursor = page.nextCursor;
    } while (cursor);
    if (texts.length > 0) context.settle(texts.join('\n\n'));
  }

  async close(): Promise<void> {
    const servers = [...this.servers.values()];
    this.servers.clear();
    await Promise.all(servers.map((server) => server.client.close()));
  }
}
