import crypto from 'node:crypto';
import { DevicePowers } from '../auth/devicePowers';
import path from 'node:path';
import type { AgentKind, CommandRow, Project, Session, TimelineRow } from '../../lib/protocol/rows';
import { DeviceAuth } from '../auth/deviceAuth';
import { PushNotifications } from '../push/pushNotifications';
import { DEFAULT_VAPID_SUBJECT } from '../push/vapidSubject';
import type { PairingGuessLimitOptions } from '../auth/pairingGuessLimit';
import type {
  AgentCommand,
  AgentInfo,
  Approval,
  ApprovalDecision,
  RecentConversation,
  SessionAgentSettings,
  UsageReading,
} from '../../lib/protocol/agents';
import type { AgentModel } from './agents/agent';
import { UsageSamples } from './agents/usage/usageSamples';
import { SessionSettings, defaultSettings } from './sessions/sessionSettings';
import type { RpcNotification } from '../../lib/protocol/notifications';
import type { Agent } from './agents/agent';
import { ApprovalRequests } from './agents/approvals';
import { ClaudeAgent } from './agents/claude/claudeAgent';
import { CodexAgent } from './agents/codex/codexAgent';
import { ShellAgent } from './agents/shellAgent';
import { DEFAULT_STOP_GRACES, type StopGraces } from './process/stopGraces';
import { TerminalAgent, type TerminalSize } from './agents/terminalAgent';
import { conflict, diskFull, invalidParams, notFound, unavailable } from './errors';
import { DiskReserve } from './store/diskReserve';
import { ProjectFiles } from './files/projectFiles';
import { GitRepositories } from './git/gitRepository';
import { MediaRenditions } from './media/mediaRenditions';
import { DEFAULT_MEDIA_LIMITS, type MediaLimits } from './media/mediaLimits';
import { SecretFiles } from './files/secretFiles';
import { codexProfilesRoot } from './agents/codex/codexProfiles';
import { accountsRoot } from './agents/claude/claudeAccounts';
import type { Logger } from './log';
import { CommandOutputStore, type OutputRange } from './output/commandOutputStore';
import { DEFAULT_FIND_LIMITS, findInOutput, type FindAnswer } from './output/findInOutput';
import { MAX_COMMAND_OUTPUT_RANGE_BYTES } from '../../lib/protocol/version';
import { sweepOutputFolder, type SweepReport } from './output/startupSweep';
import { Previews } from './preview/previews';
import { ChatSendLedger, type ChatSendAnswer } from './sendLedger/chatSend';
import { MIGRATIONS_DIR } from './paths';
import { ProcessGroupLedger } from './process/processGroupLedger';
import { stopSurvivingGroups, type SurvivorReport } from './process/stopSurvivingGroups';
import { deleteSessionWithReferences } from './sessions/deleteSession';
import { recentConversations, type RecentConversationsRequest } from './agents/recentConversations';
import { createSessionWorktree, refuseUnmergedWork, removeSessionWorktree } from './git/sessionWorktrees';
import { LiveItems } from './sessions/liveItems';
import { LiveOverlayStore } from './sessions/liveOverlay';
import { Reconciler } from './sessions/reconcile';
import { RunScheduler } from './sessions/runScheduler';
import { readItemText, type ItemTextRequest, type ItemTextSlice } from './sessions/itemText';
import { TimelinePages, type TimelinePageAnswer, type TimelinePageRequest } from './sessions/timelinePages';
import { SessionStore } from './sessions/sessionStore';
import { SessionActivity, type Viewer } from './sessions/sessionActivity';
import { SessionViews } from './sessions/sessionViews';
import { acquireDataLock } from './store/dataLock';
import { makeOwnerOnlyFolder } from './store/ownerOnly';
import { openDatabase, type Db } from './store/database';
import { Attachments, type AttachmentsOptions } from './attachments/attachments';
import { UploadCatalog } from './attachments/uploadCatalog';
import { SessionMessages } from './sendLedger/sessionMessages';
import { SessionMessaging } from './messages/sessionMessaging';
import { SessionToolChannel } from './messages/sessionToolChannel';
import { sessionToolServerSpec } from './messages/sessionToolSpec';

export interface RuntimeOptions {
  dataDir: string;
  /** Canonical project folders (SES-1). */
  projectDirs: string[];
  /** HBCODE_TOKEN, for scripts and tests (RPC-2). */
  envToken?: string;
  /** `--allow-external-files`: calls may then ask for files outside the projects (FILE-3). */
  allowExternalFiles?: boolean;
  /** `--allow-private-fetch`: the reader may fetch pages from local servers (SEC-5). */
  allowPrivateFetch?: boolean;
  /** `--allow-secret-files`: the credential file types the user lets every read path serve (FILE-6). */
  allowSecretFiles?: ReadonlySet<string>;
  /** A running turn with no agent event for this long shows as stalled (ACC-3); 3 minutes when absent. */
  agentStallMs?: number;
  /** A Claude host with no request for this long stops (SES-8); 5 minutes when absent. */
  claudeHostIdleMs?: number;
  /** How long each stop lets processes end by themselves before forcing them (SES-5, TERM-5); the defaults when absent. */
  stopGraces?: StopGraces;
  /** Wrong pairing codes evaluated per window across all sockets (SEC-9); a default when absent. */
  pairingGuessLimit?: PairingGuessLimitOptions;
  /** What pairing reads as now (codes' expiry, the guess window); Date.now when absent, a stepped clock in tests. */
  pairingClock?: () => number;
  /** How many messages a chain of sessions may pass on (MSG-3); 4 when absent. */
  maxMessageHops?: number;
  /** Attachment quotas, disk headroom and upload expiry (ATT-3); the defaults when absent. */
  attachments?: AttachmentsOptions;
  /** The checked VAPID subject for Web Push (PUSH-1); a neutral contact when absent. */
  vapidSubject?: string;
  /** What making media renditions may take (FILE-11); the defaults when absent. */
  media?: MediaLimits;
  /** SEC-9 PRV-4: the largest piece of a previewed file one read answers; FILE_CHUNK_BYTES when absent. */
  previewChunkBytes?: number;
  log: Logger;
  /**
   * Test doubles replacing the built-in adapter of their kind. Only test entry points pass this
   * (`tests/fixtures/scriptedAgentRuntime.ts`); the command line and `server/main.ts` never do.
   */
  agentDoubles?: ReadonlyMap<AgentKind, Agent>;
}

/** A protocol notification (typed by its schema in lib/protocol, forwarded as is) or an internal event. */
/** What `sessions.create` asks for (SES-1, ACC-5, ACC-8, SES-10). */
export interface NewSessionRequest {
  projectId: string;
  agent: AgentKind;
  title?: string;
  /** Claude only: continue this saved conversation (ACC-8). */
  claudeSessionId?: string;
  settings?: SessionAgentSettings;
  /** Codex only: continue this thread of the chosen profile (ACC-8). */
  codexThreadId?: string;
  /** Codex only: read the conversation of this rollout file (SRC-1). */
  codexRolloutPath?: string;
  /** A new branch and worktree for the session (SES-10); a name is made up when none is given. */
  worktree?: { branch?: string };
}

export type RuntimeEvent =
  { type: 'notification'; notification: RpcNotification } | { type: 'device.revoked'; deviceId: string };

const LEDGER_PURGE_INTERVAL_MS = 60 * 60 * 1000;
const DEFAULT_AGENT_STALL_MS = 3 * 60 * 1000;
/** How many of a terminal session's latest shells terminal.open answers (TERM-3). */
const TERMINAL_RUNS_REPLAYED = 8;

/**
 * The desktop runtime: one SQLite store, the command-output artifacts, the agents and the
 * sessions, behind methods that the RPC layer calls with validated parameters.
 */
export class Runtime {
  readonly auth: DeviceAuth;
  /** What one device may do to another (DEV-2). */
  readonly devicePowers: DevicePowers;
  readonly push: PushNotifications;
  readonly projects: Project[];
  readonly startupSweep: SweepReport;
  readonly previews: Previews;
  /** Project files as the network sees them (FILE-1…FILE-3). */
  readonly files: ProjectFiles;
  /** The projects' git repositories (GIT-1), under the same secrets policy. */
  readonly git: GitRepositories;
  /** Renditions of images, video and audio for small screens (FILE-10…FILE-12). */
  readonly media: MediaRenditions;
  /** Whether `web.fetchPage` may reach this machine and its networks (SEC-5 opt-in). */
  readonly allowPrivateFetch: boolean;
  /** Chat attachments under pasted-images/ (ATT-1). */
  readonly attachments: Attachments;
  private readonly sessions: SessionStore;
  private readonly activity: SessionActivity;
  private readonly views: SessionViews;
  private readonly outputs: CommandOutputStore;
  private readonly outbox: ChatSendLedger;
  private readonly scheduler: RunScheduler;
  private readonly overlay: LiveOverlayStore;
  private readonly liveItems: LiveItems;
  private readonly reconciler: Reconciler;
  private readonly timelinePages: TimelinePages;
  private readonly agents: Map<AgentKind, Agent>;
  private readonly approvals: ApprovalRequests;
  private readonly claude: ClaudeAgent;
  private readonly codex: CodexAgent;
  private readonly terminals: TerminalAgent;
  private readonly usage: UsageSamples;
  private readonly settings: SessionSettings;
  private readonly messaging: SessionMessaging;
  private readonly listeners = new Set<(event: RuntimeEvent) => void>();
  /** Sessions whose delete is stopping their runs: they accept no new message. */
  private readonly deleting = new Set<string>();
  private readonly purgeTimer: NodeJS.Timeout;
  private closed = false;
  private readonly reserve: DiskReserve;

  private constructor(
    readonly db: Db,
    private readonly releaseLock: () => void,
    private readonly options: RuntimeOptions,
    processes: ProcessGroupLedger,
    survivors: SurvivorReport,
    private readonly sessionTools: SessionToolChannel,
  ) {
    const graces = options.stopGraces ?? DEFAULT_STOP_GRACES;
    this.auth = new DeviceAuth(db, options.envToken, options.pairingGuessLimit, options.pairingClock);
    this.devicePowers = new DevicePowers({
      auth: this.auth,
      announce: (change) => this.publish({ method: 'devices.changed', params: change }),
      revoke: (deviceId) => this.revokeDevice(deviceId),
    });
    this.auth.onPaired((paired) =>
      this.publish({ method: 'devices.changed', params: { change: 'paired', ...paired } }),
    );
    // PUSH-1: push follows what the runtime publishes, so agents and approvals need not know about it.
    this.push = new PushNotifications({
      db,
      dataDir: options.dataDir,
      vapidSubject: options.vapidSubject ?? DEFAULT_VAPID_SUBJECT,
      log: options.log,
      allowPrivateEndpoints: options.allowPrivateFetch === true,
      namesOf: (sessionId) => {
        const session = this.sessions.session(sessionId);
        const project = session && this.projects.find((p) => p.id === session.projectId);
        return session && project ? { projectName: project.name, sessionTitle: session.title } : null;
      },
    });
    this.listeners.add((event) => this.push.onRuntimeEvent(event));
    this.sessions = new SessionStore(db);
    this.activity = new SessionActivity(db);
    this.views = new SessionViews(db);
    this.reserve = new DiskReserve(path.join(options.dataDir, 'disk-reserve'), options.log);
    this.reserve.ensure();
    this.outputs = new CommandOutputStore(db, path.join(options.dataDir, 'command-outputs'), options.log, this.reserve);
    this.outbox = new ChatSendLedger(db, this.sessions);
    // FILE-6: one secrets policy for every read path; the data folder and the agents' homes in it are never served.
    const secrets = new SecretFiles({
      allowedTypes: options.allowSecretFiles,
      protectedFolders: [options.dataDir, codexProfilesRoot(options.dataDir), accountsRoot(options.dataDir)],
    });
    this.attachments = new Attachments(
      new UploadCatalog(db),
      path.join(options.dataDir, 'pasted-images'),
      secrets,
      options.attachments,
    );
    this.approvals = new ApprovalRequests(
      db,
      (approval) => this.publish({ method: 'approval.changed', params: { sessionId: approval.sessionId, approval } }),
      // NOTE: the scheduler is made below; no agent asks before it exists.
      (request, waiting) => this.scheduler.waitingOnPerson(request.sessionId, request.runId, waiting),
    );
    // ACC-4: nothing that asked before this start is still waiting.
    const waitedOnPerson = this.approvals.expireAfterRestart();
    this.usage = new UsageSamples(db);
    this.usage.purge();
    this.settings = new SessionSettings(db);
    // MSG-1: every Codex and Claude session's agent gets the session tool server, keyed to its session.
    const toolServerOf = (sessionId: string) => sessionToolServerSpec(sessionTools.environmentFor(sessionId));
    this.claude = new ClaudeAgent(db, process.env, processes, {
      sessionTools: toolServerOf,
      approvals: this.approvals,
      recordUsage: (reading) => this.recordUsage(reading),
      titled: (sessionId, title) => this.agentTitled(sessionId, title),
      dataDir: options.dataDir,
      log: options.log,
      hostIdleMs: options.claudeHostIdleMs,
      graces,
    });
    this.codex = new CodexAgent(
      db,
      options.dataDir,
      this.approvals,
      options.log,
      process.env,
      processes,
      {
        recordUsage: (reading) => this.recordUsage(reading),
        profileChanged: (params) => this.publish({ method: 'codex.profile.changed', params }),
        threadNamed: (sessionId, name) => this.agentTitled(sessionId, name),
        sessionTools: toolServerOf,
      },
      graces.codexStopMs,
    );
    this.terminals = new TerminalAgent(
      processes,
      ({ bytes, ...where }) =>
        this.publish({ method: 'terminal.output', params: { ...where, dataBase64: bytes.toString('base64') } }),
      graces.terminalHangupMs,
    );
    this.agents = new Map<AgentKind, Agent>([
      ['shell', new ShellAgent(processes, graces)],
      ['codex', this.codex],
      ['claude', this.claude],
      ['terminal', this.terminals],
    ]);
    for (const [kind, double] of options.agentDoubles ?? []) this.agents.set(kind, double);
    this.projects = this.sessions.ensureProjects(options.projectDirs);
    this.previews = new Previews(
      () => this.projects.map((p) => p.directory),
      (previewId, changed) => this.publish({ method: 'preview.changed', params: { previewId, path: changed } }),
      secrets,
      options.previewChunkBytes,
    );
    this.files = new ProjectFiles(this.projects, options.allowExternalFiles === true, secrets);
    this.git = new GitRepositories(this.projects, secrets);
    this.media = new MediaRenditions(
      this.files,
      path.join(options.dataDir, 'media-renditions'),
      options.media ?? DEFAULT_MEDIA_LIMITS,
      options.log,
    );
    this.allowPrivateFetch = options.allowPrivateFetch === true;
    const sessionDirectory = (session: Session) => this.sessionDirectory(session);
    const publishRow = (sessionId: string, row: TimelineRow, revision?: number) =>
      this.publish({
        method: 'timeline.row',
        params: revision === undefined ? { sessionId, row } : { sessionId, row, revision },
      });
    this.overlay = new LiveOverlayStore(db);
    this.liveItems = new LiveItems({ overlay: this.overlay, publish: publishRow, log: options.log });
    const history = {
      sessions: this.sessions,
      overlay: this.overlay,
      agents: this.agents,
      sessionDirectory,
      log: options.log,
    };
    this.reconciler = new Reconciler({
      ...history,
      publishRow,
      publishRemoved: (sessionId, ids, revision) =>
        this.publish({ method: 'timeline.removed', params: { sessionId, ids, revision } }),
    });
    this.timelinePages = new TimelinePages(history);
    this.scheduler = new RunScheduler({
      sessions: this.sessions,
      outputs: this.outputs,
      outbox: this.outbox,
      agents: this.agents,
      sessionDirectory,
      publish: publishRow,
      liveItems: this.liveItems,
      reconciler: this.reconciler,
      log: options.log,
      settings: (sessionId) => this.sessionSettings(sessionId),
      stallMs: options.agentStallMs ?? DEFAULT_AGENT_STALL_MS,
      attachmentsOf: (runId) => this.attachments.agentFilesOfRun(runId),
    });
    this.messaging = new SessionMessaging({
      sessions: this.sessions,
      messages: new SessionMessages(db, this.outbox, this.sessions, options.maxMessageHops),
      scheduler: this.scheduler,
      approvals: this.approvals,
      projects: this.projects,
      settingsOf: (sessionId) => this.sessionSettings(sessionId),
      isDeleting: (sessionId) => this.deleting.has(sessionId),
      hasDiskRoom: () => this.reserve.ensure(),
    });
    sessionTools.serve((sessionId, request) => this.messaging.handle(sessionId, request));
    this.startupSweep = sweepOutputFolder(this.outputs);
    this.outbox.purgeExpired();
    this.scheduler.recoverAfterRestart(survivors.stopped, waitedOnPerson);
    this.scheduler.resumeSavedCopyReads();
    this.reconciler.recoverAtStart();
    this.purgeTimer = setInterval(() => {
      this.outbox.purgeExpired();
      this.attachments.expireAbandoned();
    }, LEDGER_PURGE_INTERVAL_MS);
    this.purgeTimer.unref();
  }

  static async open(options: RuntimeOptions): Promise<Runtime> {
    makeOwnerOnlyFolder(options.dataDir);
    const releaseLock = acquireDataLock(options.dataDir);
    let db: Db | undefined;
    const sessionTools = new SessionToolChannel(options.log);
    try {
      db = openDatabase(path.join(options.dataDir, 'hbcode.db'), MIGRATIONS_DIR);
      const processes = new ProcessGroupLedger(db);
      // SES-5: what a runtime killed by SIGKILL left running is stopped before its rows are marked.
      const survivors = await stopSurvivingGroups(
        processes,
        (options.stopGraces ?? DEFAULT_STOP_GRACES).commandKillMs,
        options.log,
      );
      await sessionTools.start();
      return new Runtime(db, releaseLock, options, processes, survivors, sessionTools);
    } catch (error) {
      await sessionTools.close();
      db?.close();
      releaseLock();
      throw error;
    }
  }

  subscribe(listener: (event: RuntimeEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private publish(notification: RpcNotification): void {
    this.emit({ type: 'notification', notification });
    // UX-8: the list's badge follows approvals and each run's state; `sessions.changed` tells it.
    const sessionId = this.listStateChange(notification);
    if (!sessionId) return;
    // A turn that ends on a device's screen is seen there (UX-8): no "unread" for it.
    this.views.changedUnderWatch(sessionId, Date.now());
    this.emit({
      type: 'notification',
      notification: { method: 'sessions.changed', params: { sessionId, deleted: false } },
    });
  }

  /** Run states last published, by run id, so only a change of state reaches the list (UX-8). */
  private readonly runStates = new Map<string, string>();

  /** The session whose list state a notification may have changed, if any (UX-8). */
  private listStateChange(notification: RpcNotification): string | null {
    if (notification.method === 'approval.changed') return notification.params.sessionId;
    if (notification.method !== 'timeline.row' || notification.params.row.kind !== 'message') return null;
    const { row, sessionId } = notification.params;
    if (this.runStates.get(row.id) === row.state) return null;
    this.runStates.set(row.id, row.state);
    if (this.runStates.size > 1000) this.runStates.delete(this.runStates.keys().next().value!);
    return sessionId;
  }

  private emit(event: RuntimeEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.options.log.error('event listener failed', { reason: (error as Error).message });
      }
    }
  }

  revokeDevice(deviceId: string): void {
    if (!this.auth.revoke(deviceId)) throw notFound('No such device.', { deviceId });
    this.emit({ type: 'device.revoked', deviceId });
  }

  /** Which agents can run here (SES-2); the app offers only these. */
  listAgents(): AgentInfo[] {
    return [...this.agents.values()].map((agent) =>
      agent.available()
        ? { agent: agent.kind, available: true }
        : { agent: agent.kind, available: false, reason: agent.unavailableReason?.() ?? 'Not installed.' },
    );
  }

  /**
   * A plan-limit reading from either agent (ACC-7): stored unless redundant, then published. The
   * Claude adapter gets this as its `recordUsage` callback.
   */
  recordUsage(reading: UsageReading): void {
    if (this.usage.record(reading)) this.publish({ method: 'usage.changed', params: { reading } });
  }

  usageList(): UsageReading[] {
    return this.usage.current();
  }

  /** The codex profiles, sign-in and threads (ACC-1, ACC-8). */
  get codexAccounts(): CodexAgent['accounts'] {
    return this.codex.accounts;
  }

  /** Codex conversations opened from their files (SRC-1..SRC-4). */
  get codexAgent(): Pick<CodexAgent, 'sources' | 'sourceOf' | 'chooseRolloutAgain'> {
    return this.codex;
  }

  sessionSettings(sessionId: string): SessionAgentSettings {
    const session = this.sessions.session(sessionId);
    if (!session) throw notFound('No such session.', { sessionId });
    return this.settings.of(sessionId, session.agent);
  }

  /** ACC-5: changed between turns; the next turn starts with them. */
  configureSession(sessionId: string, settings: SessionAgentSettings): SessionAgentSettings {
    const session = this.sessions.session(sessionId);
    if (!session) throw notFound('No such session.', { sessionId });
    if (
      settings.codex?.profileId &&
      settings.codex.profileId !== this.settings.of(sessionId, session.agent).codex?.profileId &&
      this.codex.linkedProfile(sessionId)
    ) {
      throw invalidParams(
        'This session already continues a thread of its profile; start a new session for another profile.',
      );
    }
    if (settings.codex) this.codex.accounts.requireProfile(settings.codex.profileId);
    return this.settings.save(sessionId, session.agent, settings);
  }

  /** ACC-11: conversations an agent saved for a project folder, from the app or a terminal. */
  recentConversations(request: RecentConversationsRequest): Promise<RecentConversation[]> {
    if (!this.projects.some((p) => p.directory === request.projectDirectory))
      throw notFound('This folder is not a project of this runtime.', { projectDirectory: request.projectDirectory });
    const adapter = this.agents.get(request.agent);
    if (!adapter?.available())
      throw unavailable(`The ${request.agent} agent is not available on this computer.`, { agent: request.agent });
    return recentConversations({ claude: this.claude, codex: this.codex }, request);
  }

  async agentModels(agent: AgentKind, accountKey: string | undefined): Promise<AgentModel[]> {
    const adapter = this.agents.get(agent);
    if (!adapter?.models) throw unavailable(`The ${agent} agent lists no models.`, { agent });
    return adapter.models(accountKey ?? null);
  }

  /** UX-10: the slash commands of a session's agent, asked of the agent in the session's project folder. */
  async agentCommands(sessionId: string): Promise<AgentCommand[]> {
    const session = this.sessions.session(sessionId);
    if (!session) throw notFound('No such session.', { sessionId });
    const adapter = this.agents.get(session.agent);
    // A session in a worktree of its own (SES-10) has that folder's commands.
    const cwd = this.sessionDirectory(session);
    if (!adapter?.commands || !cwd) return [];
    return adapter.commands({ sessionId, cwd, settings: this.settings.of(sessionId, session.agent) });
  }

  /**
   * A new session of a project. SES-10: with `worktree`, a new branch and its worktree are made
   * first and the session's agent runs there; the worktree goes again when the session cannot be saved.
   */
  async createSession(request: NewSessionRequest): Promise<Session> {
    const { projectId, agent, title, claudeSessionId, settings, codexThreadId, codexRolloutPath } = request;
    const project = this.projects.find((p) => p.id === projectId);
    if (!project) throw notFound('No such project.', { projectId });
    const adapter = this.agents.get(agent);
    if (!adapter || !adapter.available()) {
      throw unavailable(`The ${agent} agent is not available on this computer.`, {
        agent,
        reason: adapter?.unavailableReason?.() ?? null,
      });
    }
    if (claudeSessionId !== undefined && agent !== 'claude')
      throw invalidParams('claudeSessionId is only for Claude sessions.');
    if (codexThreadId !== undefined && agent !== 'codex')
      throw invalidParams('codexThreadId is only for Codex sessions.');
    if (codexRolloutPath !== undefined && (agent !== 'codex' || codexThreadId !== undefined))
      throw invalidParams('codexRolloutPath is only for Codex sessions, without codexThreadId.');
    if (settings?.codex) this.codex.accounts.requireProfile(settings.codex.profileId);
    const worktree = request.worktree
      ? await createSessionWorktree(project.directory, request.worktree.branch)
      : undefined;
    let session: Session;
    try {
      session = this.db.transaction(() => {
        const created = this.sessions.createSession(
          projectId,
          agent,
          title?.trim() || `New ${agent} session`,
          worktree,
        );
        if (agent === 'claude') this.claude.store.linkSession(created.id, claudeSessionId);
        const saved = this.settings.save(created.id, agent, settings ?? defaultSettings(agent));
        if (codexThreadId !== undefined)
          this.codex.continueThread(created.id, saved.codex?.profileId ?? null, codexThreadId);
        if (codexRolloutPath !== undefined)
          this.codex.openRollout(created.id, saved.codex?.profileId ?? null, codexRolloutPath);
        return created;
      })();
    } catch (error) {
      if (worktree)
        await removeSessionWorktree(project.directory, worktree, false).catch((e: unknown) =>
          this.options.log.warn('could not remove the worktree of a session that was not saved', {
            error: (e as Error).message,
          }),
        );
      throw error;
    }
    this.publish({ method: 'sessions.changed', params: { sessionId: session.id, deleted: false } });
    // TERM-1: a terminal session's shell starts with the session.
    if (agent === 'terminal') this.startShell(session.id);
    return session;
  }

  private terminalSession(sessionId: string): Session {
    const session = this.sessions.session(sessionId);
    if (!session || this.deleting.has(sessionId)) throw notFound('No such session.', { sessionId });
    if (session.agent !== 'terminal')
      throw invalidParams('This is not a terminal session.', { sessionId, agent: session.agent });
    return session;
  }

  /** A new run of the terminal session: its one command is the shell (TERM-3). */
  private startShell(sessionId: string): void {
    const outcome = this.outbox.acceptChatMessage(sessionId, `terminal-${crypto.randomUUID()}`, 'Terminal');
    if (outcome.created) this.scheduler.enqueue(outcome.created);
  }

  /**
   * terminal.open (TERM-3): starts the session's shell at this size when none runs, and answers
   * the command rows of its latest shells, oldest first, so a device replays the screen.
   */
  async openTerminal(sessionId: string, size: TerminalSize): Promise<{ rows: CommandRow[]; running: boolean }> {
    this.terminalSession(sessionId);
    if (!this.terminals.isRunning(sessionId)) {
      this.terminals.setStartSize(sessionId, size);
      const started = this.terminals.whenStarted(sessionId);
      if (!this.scheduler.hasWork(sessionId)) this.startShell(sessionId);
      await started;
    }
    // A shell that was starting already took the size it had then.
    if (this.terminals.isRunning(sessionId)) this.terminals.resize(sessionId, size);
    const runs = this.sessions.runsBefore(sessionId, Number.MAX_SAFE_INTEGER, TERMINAL_RUNS_REPLAYED).reverse();
    const rows = runs.flatMap((run) => this.sessions.commandsOfRun(run.id));
    return { rows, running: this.terminals.isRunning(sessionId) };
  }

  terminalInput(sessionId: string, data: string): void {
    this.terminalSession(sessionId);
    this.terminals.input(sessionId, data);
  }

  terminalResize(sessionId: string, size: TerminalSize): void {
    this.terminalSession(sessionId);
    this.terminals.resize(sessionId, size);
  }

  /** The pid of a terminal session's running shell (tests and diagnostics). */
  terminalShellPid(sessionId: string): number | null {
    return this.terminals.shellPid(sessionId);
  }

  /** The Claude adapter: its accounts, models and saved conversations (ACC-2, ACC-5, ACC-8). */
  get claudeAgent(): ClaudeAgent {
    return this.claude;
  }

  /** Where a session's agent works (SES-10): its worktree, else its project folder. */
  private sessionDirectory(session: Session): string | undefined {
    return session.worktree?.path ?? this.projects.find((p) => p.id === session.projectId)?.directory;
  }

  /** The sessions, the most recently active first, each with a line of its latest activity (UX-3), as `viewer` sees them (UX-8). */
  listSessions(projectId: string | undefined, viewer: Viewer): Session[] {
    return this.activity.withActivity(this.sessions.sessions(projectId), viewer);
  }

  /** UX-3: a new title for every device; `sessions.changed` tells the others. */
  renameSession(sessionId: string, title: string, viewer: Viewer): Session {
    if (!this.sessions.renameSession(sessionId, title)) throw notFound('No such session.', { sessionId });
    this.publish({ method: 'sessions.changed', params: { sessionId, deleted: false } });
    return this.activity.withActivity([this.sessions.session(sessionId)!], viewer)[0]!;
  }

  /**
   * UX-8: what the session did so far is seen by the viewer; while `open`, what it does next is
   * seen as it happens, until the returned function is called (the session is left, or the
   * socket is gone). Nothing is published: only this viewer's list changes, and it asks again
   * when it is shown.
   */
  markSessionSeen(sessionId: string, viewer: Viewer, open: boolean): (() => void) | null {
    if (!this.views.seen(sessionId, viewer, Date.now())) throw notFound('No such session.', { sessionId });
    return open ? this.views.watch(sessionId, viewer) : null;
  }

  /** UX-8: the agent named the conversation; listed while the person has not renamed the session. */
  private agentTitled(sessionId: string, title: string): void {
    const trimmed = title.trim().slice(0, 200);
    if (trimmed === '' || !this.sessions.setAgentTitle(sessionId, trimmed)) return;
    this.publish({ method: 'sessions.changed', params: { sessionId, deleted: false } });
  }

  /** One command row of a session (UX-1: an output viewer opened from its address). */
  commandOfSession(sessionId: string, runId: string, commandId: string): CommandRow {
    const row = this.sessions.commandRow(runId, commandId);
    if (!row || row.sessionId !== sessionId)
      throw notFound('This command is not in the session.', { sessionId, runId, commandId });
    return row;
  }

  /** One page of a session's timeline (TL-4): the newest when no cursor is given; running turns carry their stall (ACC-3). */
  async timeline(request: TimelinePageRequest): Promise<TimelinePageAnswer> {
    const answer = await this.timelinePages.page(request);
    return { ...answer, rows: answer.rows.map((row) => this.scheduler.withStall(row)) };
  }

  /** A slice of one long text of an agent item (TL-1): live rows from the overlay, saved ones through the agent. */
  itemText(request: ItemTextRequest): Promise<ItemTextSlice> {
    return readItemText(
      {
        sessions: this.sessions,
        overlay: this.overlay,
        agents: this.agents,
        sessionDirectory: (session) => this.sessionDirectory(session),
      },
      request,
    );
  }

  commandRow(runId: string, commandId: string): CommandRow | undefined {
    return this.sessions.commandRow(runId, commandId);
  }

  /**
   * Deletes a session (STO-4). SES-11: with `removeWorktree`, its worktree and branch go too, but
   * only with `force` when they hold work the project's HEAD lacks; the check runs again once the
   * agent is stopped, and the session is deleted only after its worktree is gone.
   */
  async deleteSession(sessionId: string, options: { removeWorktree?: boolean; force?: boolean } = {}): Promise<void> {
    const session = this.sessions.session(sessionId);
    if (!session) throw notFound('No such session.', { sessionId });
    const worktree = options.removeWorktree ? session.worktree : undefined;
    const projectDirectory = this.projects.find((p) => p.id === session.projectId)?.directory;
    if (worktree && projectDirectory && !options.force) await refuseUnmergedWork(projectDirectory, worktree);
    this.deleting.add(sessionId);
    try {
      await this.scheduler.stopSession(sessionId);
      if (worktree && projectDirectory) {
        if (!options.force) await refuseUnmergedWork(projectDirectory, worktree);
        await removeSessionWorktree(projectDirectory, worktree, options.force === true);
      }
      if (!deleteSessionWithReferences(this.sessions, this.outputs, this.outbox, sessionId)) {
        throw notFound('No such session.', { sessionId });
      }
      this.attachments.removeSession(sessionId);
    } finally {
      this.deleting.delete(sessionId);
    }
    this.liveItems.forgetSession(sessionId);
    this.reconciler.forgetSession(sessionId);
    this.overlay.forgetSession(sessionId);
    this.publish({ method: 'sessions.changed', params: { sessionId, deleted: true } });
  }

  pendingApprovals(sessionId: string): Approval[] {
    if (!this.sessions.session(sessionId)) throw notFound('No such session.', { sessionId });
    return this.approvals.pending(sessionId);
  }

  answerApproval(
    sessionId: string,
    approvalId: string,
    decision: ApprovalDecision,
    answers?: Approval['answers'],
  ): Approval {
    const asked = this.approvals.pending(sessionId).find((a) => a.id === approvalId);
    // MSG-4: a message's approval hands the message on, or declines it, with the answer.
    if (asked?.kind === 'message' && !answers) return this.messaging.answerApproval(sessionId, asked, decision);
    return this.approvals.answer(sessionId, approvalId, decision, answers ?? undefined);
  }

  /**
   * `queue` (the default) runs the message after the running turn; `steer` gives it to that
   * turn (ACC-6), done once its model was sent it, or queues it when no turn takes it. A message with
   * attachments always waits for a turn of its own: steering carries text only (ATT-2).
   */
  async chatSend(
    sessionId: string,
    operationId: string,
    text: string,
    options: { mode?: 'queue' | 'steer'; uploadIds?: readonly string[] } = {},
  ): Promise<ChatSendAnswer> {
    if (this.deleting.has(sessionId)) throw notFound('This session is being deleted.', { sessionId });
    if (this.sessions.session(sessionId)?.agent === 'terminal')
      throw invalidParams('A terminal session takes keystrokes (terminal.input), not messages.', { sessionId });
    // SRC-4: the person's own Codex conversation is shown, never written to.
    const readOnly = this.sessions.session(sessionId)?.agent === 'codex' ? this.codex.readOnlyReason(sessionId) : null;
    if (readOnly) throw invalidParams(readOnly, { sessionId, reason: 'read_only_source' });
    // A full disk refuses new work until the reserve is back: it is what lets the runtime record runs that meet the full disk.
    if (!this.reserve.ensure()) throw diskFull();
    const { uploadIds } = options;
    if (uploadIds) this.attachments.checkForMessage(sessionId, uploadIds);
    const attachments = uploadIds && {
      identity: uploadIds,
      attach: (runId: string) => this.attachments.catalog.attachToRun(runId, uploadIds),
    };
    const outcome = this.outbox.acceptChatMessage(sessionId, operationId, text, attachments);
    const run = outcome.created;
    if (!run) return outcome.answer;
    if (options.mode === 'steer' && !uploadIds && (await this.scheduler.steer(run))) {
      return { ...outcome.answer, state: this.sessions.run(run.id)?.state ?? outcome.answer.state };
    }
    this.scheduler.enqueue(run);
    return outcome.answer;
  }

  /** The session an attachment call names must exist and not be going away (ATT-1). */
  requireUploadSession(sessionId: string): void {
    if (this.deleting.has(sessionId) || !this.sessions.session(sessionId))
      throw notFound('No such session.', { sessionId });
  }

  cancelRun(sessionId: string, runId: string): void {
    const run = this.sessions.run(runId);
    if (!run || run.sessionId !== sessionId) throw notFound('No such run in this session.', { runId });
    // MSG-4: a message held for approval is not in the scheduler's queue: dropping it declines it.
    if (!this.scheduler.cancel(sessionId, runId)) this.messaging.declineHeld(sessionId, runId);
  }

  readCommandOutput(
    sessionId: string,
    runId: string,
    commandId: string,
    generation: number,
    offset: number,
    length: number,
    allocate?: (count: number) => Buffer,
  ): OutputRange {
    return this.outputs.readOutputRange(sessionId, { runId, commandId }, generation, offset, length, allocate);
  }

  /** True when the command's output lives only in its agent's history (OUT-7). */
  isHistoryOutput(runId: string, commandId: string): boolean {
    return this.sessions.outputPointer(runId, commandId) !== undefined;
  }

  /** OUT-7: a slice of output that only the agent's history holds, read through the agent. */
  async readHistoryOutput(
    sessionId: string,
    runId: string,
    commandId: string,
    generation: number,
    offset: number,
    length: number,
  ): Promise<OutputRange> {
    const pointer = this.sessions.outputPointer(runId, commandId);
    const row = this.sessions.commandRow(runId, commandId);
    if (!pointer || !row) throw notFound('No such command output.', { runId, commandId });
    if (row.sessionId !== sessionId) throw conflict('This command output belongs to another session.');
    if (generation !== 1)
      throw conflict(
        `Command output generation ${generation} was replaced by generation 1; refresh the row and read again.`,
        { generation: 1 },
      );
    const session = this.sessions.session(sessionId);
    const cwd = session && this.sessionDirectory(session);
    const agent = session && this.agents.get(session.agent);
    if (!cwd || !agent?.readHistoryOutput) throw unavailable('This agent cannot read its history here.');
    const slice = await agent.readHistoryOutput(sessionId, cwd, pointer, offset, length);
    return {
      offset,
      bytes: slice.bytes,
      availableBytes: slice.availableBytes,
      generation: 1,
      complete: true,
      sourceIncomplete: false,
    };
  }

  /**
   * PWA-2: every place `query` shows in a command's output as a terminal shows it, searched here
   * where the bytes are; output only the agent's history holds is read through the agent (OUT-7).
   */
  async findCommandOutput(
    sessionId: string,
    runId: string,
    commandId: string,
    generation: number,
    query: string,
    signal: AbortSignal,
  ): Promise<FindAnswer & { generation: number }> {
    if (this.isHistoryOutput(runId, commandId)) {
      const readSlice = (offset: number, length: number) =>
        this.readHistoryOutput(
          sessionId,
          runId,
          commandId,
          generation,
          offset,
          Math.min(length, MAX_COMMAND_OUTPUT_RANGE_BYTES),
        );
      const first = await readSlice(0, 1);
      const answer = await findInOutput(
        async (offset, length) => (await readSlice(offset, length)).bytes,
        first.availableBytes,
        query,
        { ...DEFAULT_FIND_LIMITS, pageBytes: MAX_COMMAND_OUTPUT_RANGE_BYTES },
        signal,
      );
      return { ...answer, generation: 1 };
    }
    const first = this.readCommandOutput(sessionId, runId, commandId, generation, 0, 0);
    const read = async (offset: number, length: number) =>
      this.readCommandOutput(sessionId, runId, commandId, generation, offset, length).bytes;
    return {
      ...(await findInOutput(read, first.availableBytes, query, DEFAULT_FIND_LIMITS, signal)),
      generation: first.generation,
    };
  }

  /** Stops running commands (recorded as stopped), then closes the store. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.purgeTimer);
    this.previews.closeAll();
    this.media.close();
    this.reconciler.close();
    await this.scheduler.shutdown();
    this.liveItems.flush();
    await Promise.all([...this.agents.values()].map((agent) => agent.close?.()));
    await this.sessionTools.close();
    await this.push.settled();
    this.db.close();
    this.releaseLock();
  }
}
