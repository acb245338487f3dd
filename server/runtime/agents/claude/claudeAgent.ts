import os from 'node:os';
import { claudeSessionTools, type SessionToolServerSpec } from '../../messages/sessionToolSpec';
import path from 'node:path';
import { DEFAULT_CLAUDE_SETTINGS, type AgentCommand, type UsageReading } from '../../../../lib/protocol/agents';
import type { ClaudeAccountStatus, SavedClaudeSession } from '../../../../lib/protocol/claude';
import { MAX_COMMAND_OUTPUT_RANGE_BYTES } from '../../../../lib/protocol/version';
import { conflict, notFound, unavailable } from '../../errors';
import { silentLogger, type Logger } from '../../log';
import type { ProcessGroupLedger } from '../../process/processGroupLedger';
import type { Db } from '../../store/database';
import type {
  Agent,
  AgentModel,
  AgentOutputSlice,
  AgentRunContext,
  HistoryPage,
  HistoryPageRequest,
  OutputPointer,
  SteerMessage,
} from '../agent';
import { locateClaude, type ClaudeProgram } from '../agentLocator';
import type { ApprovalRequests } from '../approvals';
import { ClaudeAccounts } from './claudeAccountService';
import { claudeRunFailure } from './claudeFailure';
import {
  approvalAskOf,
  grantsOf,
  permissionAnswerOf,
  refusedInPlanMode,
  type SessionGrants,
} from './claudePermissions';
import { accountStatusOf, describeAccount } from './claudeDescribe';
import { usageReadingOf } from './claudeUsage';
import { ClaudeStore } from './claudeStore';
import { ClaudeTurnRecords } from './claudeTurnRecords';
import { PROCESS_TAG_VARIABLE, runTag, type HostEvent, type HostRequest, type PermissionEvent } from './hostProtocol';
import { askHostOnce, type HostCall, type HostExit } from './hostProcess';
import { DEFAULT_CLAUDE_ACCOUNT } from './claudeAccounts';
import { ClaudeHosts } from './claudeHosts';
import { ClaudeResultCache, type ResultCacheLimits } from './claudeResultCache';
import { stopTagged } from '../../process/taggedProcesses';
import { DEFAULT_STOP_GRACES, type StopGraces } from '../../process/stopGraces';

export interface ClaudeAgentOptions {
  /** Where canUseTool requests and questions wait for an answer (ACC-4); without it every request is refused. */
  approvals?: Pick<ApprovalRequests, 'askForAnswers'>;
  /** Each plan-limit reading of a run (ACC-7). */
  recordUsage?: (reading: UsageReading) => void;
  /** UX-8: the title Claude gave a session's conversation (its summary or a /rename), read after each turn. */
  titled?: (sessionId: string, title: string) => void;
  /** The runtime's data folder, home of the added accounts (ACC-2); a temporary one when absent. */
  dataDir?: string;
  log?: Logger;
  /** SES-8: how long a host with nothing to do stays; the default is DEFAULT_HOST_IDLE_MS. */
  hostIdleMs?: number;
  /** SES-8: how long a read may take before it is cancelled and fails. */
  readTimeoutMs?: number;
  /** OUT-7: bounds of the Bash results kept whole in the runtime. */
  resultCache?: Partial<ResultCacheLimits>;
  /** ACC-6 SES-9: how long an interrupted turn, and then what it left, get before being forced; the defaults when absent. */
  graces?: Pick<StopGraces, 'claudeInterruptMs' | 'claudeKillMs'>;
  /** MSG-1: the session tool server each turn of a session is given, when the runtime offers one. */
  sessionTools?: (sessionId: string) => SessionToolServerSpec | null;
}

/** A read the host has not answered in this long is cancelled and fails (SES-8). */
const DEFAULT_READ_TIMEOUT_MS = 120_000;
import { claudeTurnInput } from '../../attachments/agentInput';
import { boundedCommands } from '../agentCommands';

export const RESULT_NOT_SAVED_MESSAGE = 'This command output is not in the saved Claude conversation.';
export const ITEM_NOT_SAVED_MESSAGE = 'This item is not in the saved Claude conversation.';

/** A read that got no answer: the host's own words (its exit, SES-8) when it gave them. */
function readFailure(event: HostEvent | null): Error {
  return unavailable(
    event?.type === 'done' && event.error ? event.error : 'The Claude agent host could not read the conversation.',
  );
}

/**
 * Real Claude Code sessions through the Claude Agent SDK in a separate host process (SES-2,
 * STO-1): one long-lived host per account (SES-8) answers runs and history reads as requests.
 * Bash output stays in Claude's transcript; its row carries a pointer and no bytes, and the host
 * reads it from there (OUT-7); the runtime keeps results read lately whole (claudeResultCache.ts).
 */
export class ClaudeAgent implements Agent {
  readonly kind = 'claude' as const;
  readonly store: ClaudeStore;
  private readonly turnRecords: ClaudeTurnRecords;
  readonly accounts: ClaudeAccounts;
  private readonly program: ClaudeProgram | null;
  /** The host of each running turn, for steering (ACC-6). */
  private readonly running = new Map<
    string,
    { sessionId: string; call: HostCall; steers: Map<string, SteerMessage> }
  >();
  /** The long-lived hosts, one per account (SES-8). */
  readonly hosts: ClaudeHosts;
  /** Bash results read lately, kept whole so their slices skip the host (OUT-7). */
  private readonly results: ClaudeResultCache;
  private readonly log: Logger;
  private readonly graces: Pick<StopGraces, 'claudeInterruptMs' | 'claudeKillMs'>;
  /** What "allow for this session" granted, by app session, for its later turns (ACC-4). */
  private readonly grants = new Map<string, SessionGrants>();

  constructor(
    db: Db,
    env: NodeJS.ProcessEnv = process.env,
    private readonly processes?: Pick<ProcessGroupLedger, 'trackerFor'>,
    private readonly options: ClaudeAgentOptions = {},
  ) {
    this.store = new ClaudeStore(db);
    this.turnRecords = new ClaudeTurnRecords(db);
    this.program = locateClaude(env);
    this.accounts = new ClaudeAccounts(
      db,
      options.dataDir ?? path.join(os.tmpdir(), 'hbcode-claude'),
      env,
      options.log ?? silentLogger,
    );
    this.log = options.log ?? silentLogger;
    this.graces = options.graces ?? DEFAULT_STOP_GRACES;
    this.hosts = new ClaudeHosts({
      idleMs: options.hostIdleMs,
      killGraceMs: this.graces.claudeKillMs,
      processes,
      log: this.log,
    });
    this.results = new ClaudeResultCache(options.resultCache);
  }

  /** Runtime shutdown: the hosts stop, and everything they started with them (SES-9). */
  async close(): Promise<void> {
    await this.hosts.close();
  }

  available(): boolean {
    return this.program !== null;
  }

  unavailableReason(): string {
    return 'The Claude Agent SDK is not installed: run `node scripts/install-agents.mjs`.';
  }

  private requireProgram(): ClaudeProgram {
    if (!this.program) throw unavailable(this.unavailableReason());
    return this.program;
  }

  async run(context: AgentRunContext): Promise<void> {
    const program = this.requireProgram();
    const nativeSessionId = this.store.nativeSessionId(context.sessionId);
    if (!nativeSessionId) throw unavailable('This session has no Claude conversation.');
    const { messageUuid } = this.store.claimOperation(
      context.sessionId,
      context.operationId,
      context.runId,
      context.text,
    );
    const settings = context.settings.claude ?? DEFAULT_CLAUDE_SETTINGS;
    // ACC-2: the run takes the active account's folder and key.
    const account = this.accounts.runEnvironment();
    const texts: string[] = [];
    /** Steering messages sent to the host (ACC-6), by the uuid they went with, and those the SDK took. */
    const sent = new Map<string, SteerMessage>();
    const taken: SteerMessage[] = [];
    let done: Extract<HostEvent, { type: 'done' }> | null = null;
    /** Bash calls started and not ended, by tool id (TL-3). */
    const open = new Map<string, string>();
    const host = this.hostOf(account);
    const call: HostCall = host.request(
      {
        type: 'run',
        sdkModule: program.sdkModule,
        executable: program.executable,
        cwd: context.cwd,
        nativeSessionId,
        messageUuid,
        // ATT-2: the text, and the stored images as image blocks.
        ...claudeTurnInput(context),
        permissionMode: settings.permissionMode,
        model: settings.model,
        allowedTools: this.grants.get(context.sessionId)?.allowedTools,
        additionalDirectories: this.grants.get(context.sessionId)?.directories,
        ...claudeSessionTools(this.options.sessionTools?.(context.sessionId) ?? null),
      },
      (event) => {
        context.activity();
        if (event.type === 'permission') void this.askPermission(context, event, call, settings.permissionMode);
        else if (event.type === 'rateLimit') this.recordReading(usageReadingOf(event, account.accountId));
        else if (event.type === 'text') texts.push(event.text);
        else if (event.type === 'steerTaken') {
          const steer = sent.get(event.messageUuid);
          if (steer) taken.push(steer);
        } else if (event.type === 'done') done = event;
        else if (event.type === 'item') {
          // TL-6: the turn end is kept before it is shown, so the saved timeline has it as soon as the live one.
          if (event.item.kind === 'turnEnd' && event.afterMessageUuid)
            this.turnRecords.save(context.sessionId, messageUuid, event.afterMessageUuid, event.item);
          context.item(event.item);
        } else if (event.type === 'commandStarted') {
          // TL-3: the row is there from the call on, so what comes while it runs (a steer) follows it.
          open.set(event.itemId, event.command);
          context.startHistoryCommand(event.itemId, event.command, {
            threadId: nativeSessionId,
            turnId: '',
            itemId: event.itemId,
            byteLength: 0,
          });
        } else if (event.type === 'command') {
          open.delete(event.itemId);
          // The command id is Claude's tool_use id, so the saved history's entry finds this row (TL-4).
          const result = event.refusal
            ? {
                status: 'failed' as const,
                exitCode: null,
                error: `Claude Code refused to run this command: ${event.refusal}`,
              }
            : { status: 'exited' as const, exitCode: event.exitCode };
          context.recordHistoryCommand(event.itemId, event.command, result, {
            threadId: nativeSessionId,
            turnId: event.turnId,
            itemId: event.itemId,
            byteLength: event.byteLength,
          });
        }
      },
    );
    this.running.set(context.runId, { sessionId: context.sessionId, call, steers: sent });
    let exit: HostExit | null;
    try {
      exit = await this.untilEnded(call, context.signal);
    } finally {
      this.running.delete(context.runId);
      // SES-5: a command the turn left without a result (a Stop, the host's end) ended with it.
      for (const [itemId, command] of open) {
        context.recordHistoryCommand(
          itemId,
          command,
          { status: 'cancelled', exitCode: null },
          { threadId: nativeSessionId, turnId: '', itemId, byteLength: 0 },
        );
      }
    }
    if (context.signal.aborted) {
      // SES-9: a stopped turn leaves nothing running: Claude Code and its commands carry the run's
      // tag. The row need not wait for it: what a stop leaves is found by the tag whenever it goes.
      void stopTagged(PROCESS_TAG_VARIABLE, runTag(host.tag, messageUuid), this.graces.claudeKillMs).then((stopped) => {
        if (stopped > 0)
          this.log.info('stopped what a stopped Claude turn left', { runId: context.runId, processes: stopped });
      });
      return;
    }
    const outcome = done as Extract<HostEvent, { type: 'done' }> | null;
    if (!outcome?.ok) {
      const described = this.accounts.list().accounts.find((a) => a.id === account.accountId);
      throw claudeRunFailure(outcome, exit, {
        label: described?.label ?? account.accountId,
        signInCommand: described?.signInCommand ?? 'claude /login',
      });
    }
    // ACC-6: the run's input closes only once Claude Code answered every message the SDK took from
    // it, so a run that ended well had its model sent each of those; any other end proves nothing.
    for (const steer of taken) steer.reached();
    if (texts.length > 0) context.settle(texts.join('\n\n'));
    // After the turn, not in its way: Claude may have summarized the conversation in it.
    if (this.options.titled) void this.readTitle(context.sessionId, context.cwd, nativeSessionId);
  }

  /** UX-8: Claude's own title of a conversation, passed on when it has one; a failed read only costs the title. */
  private async readTitle(sessionId: string, cwd: string, nativeSessionId: string): Promise<void> {
    try {
      const event = await this.askHost({
        type: 'sessionTitle',
        sdkModule: this.requireProgram().sdkModule,
        cwd,
        nativeSessionId,
      });
      if (event?.type === 'sessionTitle' && event.title) this.options.titled?.(sessionId, event.title);
    } catch (error) {
      this.log.warn('could not read the Claude conversation title', {
        sessionId,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /**
   * The end of a run's request; the host's exit when it died first. ACC-6: Stop interrupts the turn
   * the SDK's way; when the turn has not ended after the grace its query is cancelled, and after
   * that the run ends whatever the host does.
   */
  private async untilEnded(call: HostCall, signal: AbortSignal): Promise<HostExit | null> {
    const timers: NodeJS.Timeout[] = [];
    let giveUp: () => void = () => undefined;
    const abandoned = new Promise<{ exit: HostExit | null }>((resolve) => (giveUp = () => resolve({ exit: null })));
    const onAbort = () => {
      call.send({ type: 'interrupt' });
      timers.push(
        setTimeout(() => {
          call.cancel();
          timers.push(setTimeout(giveUp, this.graces.claudeKillMs));
        }, this.graces.claudeInterruptMs),
      );
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      return (await Promise.race([call.ended, abandoned])).exit;
    } finally {
      signal.removeEventListener('abort', onAbort);
      timers.forEach(clearTimeout);
    }
  }

  /** canUseTool and AskUserQuestion become approvals any device may answer, once (ACC-4). */
  private async askPermission(
    context: AgentRunContext,
    event: PermissionEvent,
    host: HostCall,
    permissionMode: string,
  ): Promise<void> {
    const refused = refusedInPlanMode(event, permissionMode);
    if (refused) {
      host.send({ type: 'permissionAnswer', requestId: event.requestId, result: refused });
      return;
    }
    const approvals = this.options.approvals;
    const outcome = approvals
      ? await approvals.askForAnswers(
          { sessionId: context.sessionId, runId: context.runId, ...approvalAskOf(event) },
          context.signal,
        )
      : { decision: 'decline' as const, answers: null };
    if (outcome.decision === 'acceptForSession') {
      const granted = grantsOf(event.suggestions);
      const held = this.grants.get(context.sessionId) ?? { allowedTools: [], directories: [] };
      this.grants.set(context.sessionId, {
        allowedTools: [...new Set([...held.allowedTools, ...granted.allowedTools])],
        directories: [...new Set([...held.directories, ...granted.directories])],
      });
    }
    host.send({ type: 'permissionAnswer', requestId: event.requestId, result: permissionAnswerOf(event, outcome) });
  }

  private recordReading(reading: UsageReading | null): void {
    if (!reading) return;
    this.accounts.noteReading(reading);
    this.options.recordUsage?.(reading);
  }

  /** A message for the running turn, through the SDK's streaming input (ACC-6); reached when the run ends well. */
  async steer(sessionId: string, runId: string, message: SteerMessage): Promise<void> {
    const running = this.running.get(runId);
    if (!running || running.sessionId !== sessionId)
      throw conflict('This turn is no longer running; send the message as a new one.', { runId });
    // The transcript keeps the text under this uuid, linked to the steer run: its row is that run's message row (TL-3).
    const { messageUuid } = this.store.claimOperation(sessionId, message.operationId, message.runId, message.text);
    running.steers.set(messageUuid, message);
    running.call.send({ type: 'steer', text: message.text, messageUuid });
  }

  /** Models of an account (the active one by default), from supportedModels (ACC-5). */
  async models(accountKey: string | null): Promise<AgentModel[]> {
    const described = await describeAccount(
      this.requireProgram(),
      this.hostOf(this.accounts.runEnvironment(accountKey ?? undefined)),
      this.readTimeoutMs,
    );
    if (!described) throw unavailable('Claude Code did not say which models it offers.');
    return described.models.map((m) => ({
      id: m.value,
      label: m.displayName,
      description: m.description || null,
      efforts: m.efforts,
      isDefault: m.value === 'default',
    }));
  }

  /** UX-10: what supportedCommands offers in the project folder, with the account a run would take. */
  async commands(session: { cwd: string }): Promise<AgentCommand[]> {
    const program = this.requireProgram();
    const request = {
      type: 'commands',
      sdkModule: program.sdkModule,
      executable: program.executable,
      cwd: session.cwd,
    } as const;
    const event = await askHostOnce(this.hostOf(this.accounts.runEnvironment()), request, this.readTimeoutMs);
    if (event?.type !== 'commands')
      throw unavailable(
        `Claude Code could not list its commands: ${event?.type === 'done' ? event.error : 'the agent host gave no answer.'}`,
      );
    return boundedCommands(event.commands);
  }

  /** Whether an account is signed in, from accountInfo (ACC-2). */
  async accountStatus(accountId: string): Promise<ClaudeAccountStatus> {
    let status: ClaudeAccountStatus;
    try {
      status = accountStatusOf(
        await describeAccount(
          this.requireProgram(),
          this.hostOf(this.accounts.runEnvironment(accountId)),
          this.readTimeoutMs,
        ),
      );
    } catch (error) {
      status = {
        state: 'unavailable',
        email: null,
        organization: null,
        subscriptionType: null,
        source: null,
        reason: (error as Error).message,
      };
    }
    this.accounts.rememberStatus(accountId, status);
    return status;
  }

  /** Conversations Claude saved for a project folder, read with the main folder (ACC-8). */
  async savedSessions(cwd: string, limit: number): Promise<SavedClaudeSession[]> {
    const program = this.requireProgram();
    const event = await this.askHost({ type: 'savedSessions', sdkModule: program.sdkModule, cwd, limit });
    if (event?.type !== 'sessions')
      throw unavailable(
        `Claude's saved conversations could not be listed: ${event?.type === 'done' ? event.error : 'the agent host gave no answer.'}`,
      );
    const answer = event;
    return answer.sessions.map((s) => ({
      claudeSessionId: s.sessionId,
      summary: s.summary,
      lastModified: s.lastModified,
      gitBranch: s.gitBranch,
      firstPrompt: s.firstPrompt,
      sizeBytes: s.fileSize,
      openInSessionId: this.store.appSessionOf(s.sessionId) ?? null,
    }));
  }

  /** One page of the saved conversation or of a subagent's, read by a new host through the SDK (TL-4). */
  async historyPage(request: HistoryPageRequest): Promise<HistoryPage> {
    const program = this.requireProgram();
    const nativeSessionId = this.store.nativeSessionId(request.sessionId);
    if (!nativeSessionId) return { entries: [], older: null, newer: null };
    const { parentItemId, before, after, limit } = request;
    const event = await this.askHost({
      type: 'historyPage',
      sdkModule: program.sdkModule,
      cwd: request.cwd,
      nativeSessionId,
      parentItemId,
      before,
      after,
      limit,
    });
    // TL-6: the app's turn records go in after the messages they follow.
    if (event?.type === 'history')
      return {
        entries: this.turnRecords.merge(request.sessionId, event.entries, event.anchors ?? []),
        older: event.older,
        newer: event.newer,
      };
    throw readFailure(event);
  }

  /** One slice of a long text of a saved item (a diff, a tool result), read by the host (TL-1). */
  async readItemText(request: {
    sessionId: string;
    cwd: string;
    parentItemId: string | null;
    itemId: string;
    field: string;
    offset: number;
    length: number;
  }): Promise<AgentOutputSlice> {
    const program = this.requireProgram();
    const nativeSessionId = this.store.nativeSessionId(request.sessionId);
    if (!nativeSessionId) throw notFound(ITEM_NOT_SAVED_MESSAGE, { sessionId: request.sessionId });
    const { cwd, parentItemId, itemId, field, offset } = request;
    const length = Math.min(request.length, MAX_COMMAND_OUTPUT_RANGE_BYTES);
    const event = await this.askHost({
      type: 'itemText',
      sdkModule: program.sdkModule,
      cwd,
      nativeSessionId,
      parentItemId,
      itemId,
      field,
      offset,
      length,
    });
    if (event?.type === 'output')
      return { bytes: Buffer.from(event.dataBase64, 'base64'), availableBytes: event.availableBytes };
    if (event?.type === 'missing') throw notFound(ITEM_NOT_SAVED_MESSAGE, { sessionId: request.sessionId, itemId });
    throw readFailure(event);
  }

  private get readTimeoutMs(): number {
    return this.options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
  }

  /**
   * One read through the main folder's host (ACC-2, SES-8) and its first answer; a `done` with the
   * host's exit when the host died under it.
   */
  private async askHost(request: HostRequest): Promise<HostEvent | null> {
    return askHostOnce(this.hostOf(this.accounts.runEnvironment(DEFAULT_CLAUDE_ACCOUNT)), request, this.readTimeoutMs);
  }

  /**
   * The host of an account (SES-8): the main folder's variables under the account's own, so the
   * main account's runs and every history read share one host (ACC-2).
   */
  private hostOf(account: { accountId: string; env: NodeJS.ProcessEnv }) {
    return this.hosts.hostFor(account.accountId, { ...this.accounts.historyEnvironment(), ...account.env });
  }

  /**
   * One slice (≤ 256 KiB) of a Bash result (OUT-7): cut from the runtime's whole copy while the
   * files it came from hold it, else read by the host from the saved conversation.
   */
  async readHistoryOutput(
    sessionId: string,
    cwd: string,
    pointer: OutputPointer,
    offset: number,
    length: number,
  ): Promise<AgentOutputSlice> {
    const program = this.requireProgram();
    const key = `${cwd}\u0000${pointer.threadId}\u0000${pointer.itemId}`;
    return this.results.slice(key, offset, Math.min(length, MAX_COMMAND_OUTPUT_RANGE_BYTES), async (from, count) => {
      const event = await this.askHost({
        type: 'toolOutput',
        sdkModule: program.sdkModule,
        cwd,
        nativeSessionId: pointer.threadId,
        itemId: pointer.itemId,
        offset: from,
        length: count,
      });
      if (event?.type === 'output')
        return {
          bytes: Buffer.from(event.dataBase64, 'base64'),
          availableBytes: event.availableBytes,
          sources: event.sources ?? null,
        };
      if (event?.type === 'missing') throw notFound(RESULT_NOT_SAVED_MESSAGE, { sessionId });
      throw readFailure(event);
    });
  }
}
