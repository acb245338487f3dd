import path from 'node:path';
import type { AgentKind, CommandRow, Project, Session, TimelineRow } from '../../lib/protocol/rows';
import { DeviceAuth } from '../auth/tokens';
import type { PairingGuessLimitOptions } from '../auth/pairingGuessLimit';
import type { AgentInfo, Approval, ApprovalDecision } from '../../lib/protocol/agents';
import type { RpcNotification } from '../../lib/protocol/notifications';
import type { Agent } from './agents/agent';
import { ApprovalRequests } from './agents/approvals';
import { ClaudeAgent } from './agents/claude/claudeAgent';
import { CodexAgent } from './agents/codex/codexAgent';
import { COMMAND_KILL_GRACE_MS, ShellAgent } from './agents/shellAgent';
import { conflict, diskFull, invalidParams, notFound, unavailable } from './errors';
import { DiskReserve } from './store/diskReserve';
import { ProjectFiles } from './files/projectFiles';
import type { Logger } from './log';
import { CommandOutputStore, type OutputRange } from './output/artifactStore';
import { sweepOutputFolder, type SweepReport } from './output/startupSweep';
import { Previews } from './preview/previews';
import { ChatSendLedger, type ChatSendAnswer } from './outbox/chatSend';
import { MIGRATIONS_DIR } from './paths';
import { ProcessGroupLedger } from './process/processGroupLedger';
import { stopSurvivingGroups, type SurvivorReport } from './process/stopSurvivingGroups';
import { deleteSessionWithReferences } from './sessions/deleteSession';
import { RunScheduler } from './sessions/runScheduler';
import { SessionStore } from './sessions/sessionStore';
import { acquireDataLock } from './store/dataLock';
import { makeOwnerOnlyFolder } from './store/ownerOnly';
import { openDatabase, type Db } from './store/database';
import { Attachments } from './attachments/attachments';
import { UploadCatalog } from './attachments/uploadCatalog';

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
  /** Wrong pairing codes evaluated per window across all sockets (SEC-9); a default when absent. */
  pairingGuessLimit?: PairingGuessLimitOptions;
  log: Logger;
}

/** A protocol notification (typed by its schema in lib/protocol, forwarded as is) or an internal event. */
export type RuntimeEvent = { type: 'notification'; notification: RpcNotification } | { type: 'device.revoked'; deviceId: string };

const LEDGER_PURGE_INTERVAL_MS = 60 * 60 * 1000;

/**
 * The desktop runtime: one SQLite store, the command-output artifacts, the agents and the
 * sessions, behind methods that the RPC layer calls with validated parameters.
 */
export class Runtime {
  readonly auth: DeviceAuth;
  readonly projects: Project[];
  readonly startupSweep: SweepReport;
  readonly previews: Previews;
  /** Project files as the network sees them (FILE-1…FILE-3). */
  readonly files: ProjectFiles;
  /** Whether `web.fetchPage` may reach this machine and its networks (SEC-5 opt-in). */
  readonly allowPrivateFetch: boolean;
  /** Chat attachments under pasted-images/ (ATT-1). */
  readonly attachments: Attachments;
  private readonly sessions: SessionStore;
  private readonly outputs: CommandOutputStore;
  private readonly outbox: ChatSendLedger;
  private readonly scheduler: RunScheduler;
  private readonly agents: Map<AgentKind, Agent>;
  private readonly approvals: ApprovalRequests;
  private readonly claude: ClaudeAgent;
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
  ) {
    this.auth = new DeviceAuth(db, options.envToken, options.pairingGuessLimit);
    this.sessions = new SessionStore(db);
    this.reserve = new DiskReserve(path.join(options.dataDir, 'disk-reserve'), options.log);
    this.reserve.ensure();
    this.outputs = new CommandOutputStore(db, path.join(options.dataDir, 'command-outputs'), options.log, this.reserve);
    this.outbox = new ChatSendLedger(db, this.sessions);
    this.attachments = new Attachments(new UploadCatalog(db), path.join(options.dataDir, 'pasted-images'));
    this.approvals = new ApprovalRequests((approval) => this.publish({ method: 'approval.changed', params: { sessionId: approval.sessionId, approval } }));
    this.claude = new ClaudeAgent(db, process.env, processes);
    this.agents = new Map<AgentKind, Agent>([
      ['shell', new ShellAgent(processes)],
      ['codex', new CodexAgent(db, options.dataDir, this.approvals, options.log, process.env, processes)],
      ['claude', this.claude],
    ]);
    this.projects = this.sessions.ensureProjects(options.projectDirs);
    this.previews = new Previews(
      () => this.projects.map((p) => p.directory),
      (previewId, changed) => this.publish({ method: 'preview.changed', params: { previewId, path: changed } }),
    );
    this.files = new ProjectFiles(this.projects, options.allowExternalFiles === true);
    this.allowPrivateFetch = options.allowPrivateFetch === true;
    this.scheduler = new RunScheduler({
      sessions: this.sessions,
      outputs: this.outputs,
      outbox: this.outbox,
      agents: this.agents,
      projectDirectory: (id) => this.projects.find((p) => p.id === id)?.directory,
      publish: (sessionId, row) => this.publish({ method: 'timeline.row', params: { sessionId, row } }),
      log: options.log,
      attachmentsOf: (runId) => this.attachments.agentFilesOfRun(runId),
    });
    this.startupSweep = sweepOutputFolder(this.outputs);
    this.outbox.purgeExpired();
    this.scheduler.recoverAfterRestart(survivors.stopped);
    this.purgeTimer = setInterval(() => this.outbox.purgeExpired(), LEDGER_PURGE_INTERVAL_MS);
    this.purgeTimer.unref();
  }

  static async open(options: RuntimeOptions): Promise<Runtime> {
    makeOwnerOnlyFolder(options.dataDir);
    const releaseLock = acquireDataLock(options.dataDir);
    let db: Db | undefined;
    try {
      db = openDatabase(path.join(options.dataDir, 'hbcode.db'), MIGRATIONS_DIR);
      const processes = new ProcessGroupLedger(db);
      // SES-5: what a runtime killed by SIGKILL left running is stopped before its rows are marked.
      const survivors = await stopSurvivingGroups(processes, COMMAND_KILL_GRACE_MS, options.log);
      return new Runtime(db, releaseLock, options, processes, survivors);
    } catch (error) {
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
      agent.available() ? { agent: agent.kind, available: true } : { agent: agent.kind, available: false, reason: agent.unavailableReason?.() ?? 'Not installed.' },
    );
  }

  createSession(projectId: string, agent: AgentKind, title: string | undefined, claudeSessionId?: string): Session {
    if (!this.projects.some((p) => p.id === projectId)) throw notFound('No such project.', { projectId });
    const adapter = this.agents.get(agent);
    if (!adapter || !adapter.available()) {
      throw unavailable(`The ${agent} agent is not available on this computer.`, { agent, reason: adapter?.unavailableReason?.() ?? null });
    }
    if (claudeSessionId !== undefined && agent !== 'claude') throw invalidParams('claudeSessionId is only for Claude sessions.');
    const session = this.db.transaction(() => {
      const created = this.sessions.createSession(projectId, agent, title?.trim() || `New ${agent} session`);
      if (agent === 'claude') this.claude.store.linkSession(created.id, claudeSessionId);
      return created;
    })();
    this.publish({ method: 'sessions.changed', params: { sessionId: session.id, deleted: false } });
    return session;
  }

  listSessions(projectId: string | undefined): Session[] {
    return this.sessions.sessions(projectId);
  }

  timeline(sessionId: string): TimelineRow[] {
    if (!this.sessions.session(sessionId)) throw notFound('No such session.', { sessionId });
    return this.sessions.timeline(sessionId);
  }

  /** A slice of one long text of an agent item (TL-1); the live overlay and the agent's history land with TL-3. */
  async itemText(params: { sessionId: string; itemId: string }): Promise<{ offset: number; dataBase64: string; byteCount: number; availableBytes: number }> {
    if (!this.sessions.session(params.sessionId)) throw notFound('No such session.', { sessionId: params.sessionId });
    throw notFound('No such item in this session.', { itemId: params.itemId });
  }

  commandRow(runId: string, commandId: string): CommandRow | undefined {
    return this.sessions.commandRow(runId, commandId);
  }

  async deleteSession(sessionId: string): Promise<void> {
    if (!this.sessions.session(sessionId)) throw notFound('No such session.', { sessionId });
    this.deleting.add(sessionId);
    try {
      await this.scheduler.stopSession(sessionId);
      if (!deleteSessionWithReferences(this.sessions, this.outputs, this.outbox, sessionId)) {
        throw notFound('No such session.', { sessionId });
      }
      this.attachments.removeSession(sessionId);
    } finally {
      this.deleting.delete(sessionId);
    }
    this.approvals.forgetSession(sessionId);
    this.publish({ method: 'sessions.changed', params: { sessionId, deleted: true } });
  }

  pendingApprovals(sessionId: string): Approval[] {
    if (!this.sessions.session(sessionId)) throw notFound('No such session.', { sessionId });
    return this.approvals.pending(sessionId);
  }

  answerApproval(sessionId: string, approvalId: string, decision: ApprovalDecision): Approval {
    return this.approvals.answer(sessionId, approvalId, decision);
  }

  chatSend(sessionId: string, operationId: string, text: string, uploadIds?: readonly string[]): ChatSendAnswer {
    if (this.deleting.has(sessionId)) throw notFound('This session is being deleted.', { sessionId });
    // A full disk refuses new work until the reserve is back: it is what lets the runtime record runs that meet the full disk.
    if (!this.reserve.ensure()) throw diskFull();
    if (uploadIds) this.attachments.checkForMessage(sessionId, uploadIds);
    const attachments = uploadIds && { uploadIds, attach: (runId: string) => this.attachments.catalog.attachToRun(runId, uploadIds) };
    const outcome = this.outbox.acceptChatMessage(sessionId, operationId, text, attachments);
    if (outcome.created) this.scheduler.enqueue(outcome.created);
    return outcome.answer;
  }

  /** The session an attachment call names must exist and not be going away (ATT-1). */
  requireUploadSession(sessionId: string): void {
    if (this.deleting.has(sessionId) || !this.sessions.session(sessionId)) throw notFound('No such session.', { sessionId });
  }

  cancelRun(sessionId: string, runId: string): void {
    const run = this.sessions.run(runId);
    if (!run || run.sessionId !== sessionId) throw notFound('No such run in this session.', { runId });
    this.scheduler.cancel(sessionId, runId);
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
  async readHistoryOutput(sessionId: string, runId: string, commandId: string, generation: number, offset: number, length: number): Promise<OutputRange> {
    const pointer = this.sessions.outputPointer(runId, commandId);
    const row = this.sessions.commandRow(runId, commandId);
    if (!pointer || !row) throw notFound('No such command output.', { runId, commandId });
    if (row.sessionId !== sessionId) throw conflict('This command output belongs to another session.');
    if (generation !== 1) throw conflict(`Command output generation ${generation} was replaced by generation 1; refresh the row and read again.`, { generation: 1 });
    const session = this.sessions.session(sessionId);
    const cwd = session && this.projects.find((p) => p.id === session.projectId)?.directory;
    const agent = session && this.agents.get(session.agent);
    if (!cwd || !agent?.readHistoryOutput) throw unavailable('This agent cannot read its history here.');
    const slice = await agent.readHistoryOutput(sessionId, cwd, pointer, offset, length);
    return { offset, bytes: slice.bytes, availableBytes: slice.availableBytes, generation: 1, complete: true, sourceIncomplete: false };
  }

  /** Stops running commands (recorded as stopped), then closes the store. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.purgeTimer);
    this.previews.closeAll();
    await this.scheduler.shutdown();
    await Promise.all([...this.agents.values()].map((agent) => agent.close?.()));
    this.db.close();
    this.releaseLock();
  }
}
