import crypto from 'node:crypto';
import path from 'node:path';
import type {
  AgentKind,
  CommandRow,
  CommandStatus,
  MessageRow,
  MessageSender,
  MessageState,
  Project,
  Session,
  SessionWorktree,
  SettledRow,
  TimelineRow,
} from '../../../lib/protocol/rows';
import { z } from 'zod';
import type { MessageAttachment } from '../../../lib/protocol/attachments';
import { DECLINED_COMMAND_ERROR, type OutputPointer } from '../agents/agent';
import type { AgentFailure } from '../agents/agentRunError';
import type { Db } from '../store/database';

interface RawSession {
  id: string;
  project_id: string;
  agent: AgentKind;
  title: string;
  created_at: number;
  agent_title: string | null;
  worktree_branch: string | null;
  worktree_path: string | null;
}

interface RawRun {
  id: string;
  session_id: string;
  operation_id: string;
  text: string;
  state: MessageState;
  seq: number;
  created_at: number;
  failure: string | null;
  steer_state: StoredSteerState | null;
}

/** A steering message's progress as stored (ACC-6); `lost` is shown as `notDelivered`. */
export type StoredSteerState = 'sending' | 'accepted' | 'delivered' | 'lost';

interface RawCommand {
  run_id: string;
  command_id: string;
  session_id: string;
  command: string;
  status: CommandStatus;
  exit_code: number | null;
  error: string | null;
  started_at: number;
  ended_at: number | null;
  byte_length: number | null;
  generation: number | null;
  complete: number | null;
  source_incomplete: number | null;
  storage_error: string | null;
  pointer_bytes: number | null;
}

export interface RunRecord {
  id: string;
  sessionId: string;
  operationId: string;
  text: string;
  state: MessageState;
  seq: number;
  createdAt: number;
  /** Why the run failed, in words the user can act on (ACC-3). */
  failure?: AgentFailure;
  /** The message's attachments (ATT-1), when it has any. */
  attachments?: MessageAttachment[];
  /** Set when the message steers a running turn (ACC-6). */
  steer?: StoredSteerState;
  /** The session whose agent sent the message (MSG-1). */
  fromSession?: MessageSender;
}

const AgentFailureSchema: z.ZodType<AgentFailure> = z.object({
  code: z.string(),
  message: z.string(),
  action: z.enum(['codexSignIn', 'claudeSignIn', 'install', 'resend']).nullable(),
});

const toSession = (r: RawSession): Session => ({
  id: r.id,
  projectId: r.project_id,
  agent: r.agent,
  title: r.title,
  createdAt: r.created_at,
  ...(r.worktree_branch && r.worktree_path ? { worktree: { branch: r.worktree_branch, path: r.worktree_path } } : {}),
});
const toRun = (r: RawRun): RunRecord => ({
  id: r.id,
  sessionId: r.session_id,
  operationId: r.operation_id,
  text: r.text,
  state: r.state,
  seq: r.seq,
  createdAt: r.created_at,
  ...(r.failure ? { failure: AgentFailureSchema.parse(JSON.parse(r.failure)) } : {}),
  ...(r.steer_state ? { steer: r.steer_state } : {}),
});

export const messageRowOf = (run: RunRecord): MessageRow => ({
  kind: 'message',
  id: `m:${run.id}`,
  sessionId: run.sessionId,
  operationId: run.operationId,
  runId: run.id,
  text: run.text,
  state: run.state,
  createdAt: run.createdAt,
  ...(run.failure ? { failure: run.failure } : {}),
  ...(run.attachments?.length ? { attachments: run.attachments } : {}),
  ...(run.steer ? { steer: run.steer === 'lost' ? 'notDelivered' : run.steer } : {}),
  ...(run.fromSession ? { fromSession: run.fromSession } : {}),
});

export const settledRowOf = (
  sessionId: string,
  s: { run_id: string; text: string; created_at: number },
): SettledRow => ({
  kind: 'settled',
  id: `s:${s.run_id}`,
  sessionId,
  runId: s.run_id,
  text: s.text,
  createdAt: s.created_at,
});

function commandRowOf(r: RawCommand): CommandRow {
  const error = r.error ?? r.storage_error ?? undefined;
  const declined = r.status === 'cancelled' && r.error === DECLINED_COMMAND_ERROR;
  if (r.pointer_bytes !== null) {
    // OUT-7: the agent's history holds the output whole; the row only says how long it is.
    return {
      kind: 'command',
      id: `c:${r.run_id}:${r.command_id}`,
      sessionId: r.session_id,
      runId: r.run_id,
      commandId: r.command_id,
      command: r.command,
      status: r.status,
      exitCode: r.exit_code,
      byteLength: r.pointer_bytes,
      generation: 1,
      complete: r.status !== 'running',
      sourceIncomplete: false,
      ...(error ? { error } : {}),
      outputSource: 'agent',
      startedAt: r.started_at,
      endedAt: r.ended_at,
    };
  }
  return {
    kind: 'command',
    id: `c:${r.run_id}:${r.command_id}`,
    sessionId: r.session_id,
    runId: r.run_id,
    commandId: r.command_id,
    command: r.command,
    status: r.status,
    exitCode: r.exit_code,
    byteLength: r.byte_length ?? 0,
    generation: r.generation ?? 0,
    complete: r.complete === null ? r.status !== 'running' : r.complete === 1,
    sourceIncomplete: !declined && r.source_incomplete === 1,
    ...(error ? { error } : {}),
    ...(declined ? { declined } : {}),
    startedAt: r.started_at,
    endedAt: r.ended_at,
  };
}

const COMMAND_SELECT = `SELECT c.*, o.byte_length, o.generation, o.complete, o.source_incomplete, o.storage_error, p.byte_length AS pointer_bytes
  FROM commands c LEFT JOIN command_outputs o ON o.run_id = c.run_id AND o.command_id = c.command_id
  LEFT JOIN command_output_pointers p ON p.run_id = c.run_id AND p.command_id = c.command_id`;

/** Projects, sessions, runs and commands: the rows the timeline is made of (SES-1, SES-3). */
export class SessionStore {
  private readonly stmts;

  constructor(readonly db: Db) {
    this.stmts = {
      projectByDir: db.prepare<[string], Project>('SELECT id, name, directory FROM projects WHERE directory = ?'),
      insertProject: db.prepare('INSERT INTO projects (id, name, directory, created_at) VALUES (?, ?, ?, ?)'),
      session: db.prepare<[string], RawSession>('SELECT * FROM sessions WHERE id = ?'),
      sessionsAll: db.prepare<[], RawSession>('SELECT * FROM sessions ORDER BY created_at DESC, id'),
      sessionsOfProject: db.prepare<[string], RawSession>(
        'SELECT * FROM sessions WHERE project_id = ? ORDER BY created_at DESC, id',
      ),
      insertSession: db.prepare(
        'INSERT INTO sessions (id, project_id, agent, title, created_at, worktree_branch, worktree_path) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      run: db.prepare<[string], RawRun>('SELECT * FROM runs WHERE id = ?'),
      runByOperation: db.prepare<[string, string], RawRun>(
        'SELECT * FROM runs WHERE session_id = ? AND operation_id = ?',
      ),
      runsBefore: db.prepare<[string, number, number], RawRun>(
        'SELECT * FROM runs WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
      ),
      runsFrom: db.prepare<[string, number, number], RawRun>(
        'SELECT * FROM runs WHERE session_id = ? AND seq >= ? ORDER BY seq LIMIT ?',
      ),
      runsSince: db.prepare<[string, number], RawRun>(
        'SELECT * FROM runs WHERE session_id = ? AND created_at >= ? ORDER BY seq',
      ),
      runOfNativeMessage: db.prepare<[string, string], RawRun>(
        'SELECT r.* FROM claude_operations o JOIN runs r ON r.id = o.run_id WHERE o.app_session_id = ? AND o.native_message_id = ?',
      ),
      commandInSession: db.prepare<[string, string], RawCommand>(
        `${COMMAND_SELECT} WHERE c.session_id = ? AND c.command_id = ? ORDER BY c.started_at DESC LIMIT 1`,
      ),
      settlement: db.prepare<[string], { run_id: string; text: string; created_at: number }>(
        'SELECT run_id, text, created_at FROM run_settlements WHERE run_id = ?',
      ),
      runsInState: db.prepare<[string], RawRun>('SELECT * FROM runs WHERE state = ? ORDER BY session_id, seq'),
      unfinishedSteers: db.prepare<[], RawRun>(
        "SELECT * FROM runs WHERE steer_state IN ('sending', 'accepted') ORDER BY session_id, seq",
      ),
      setSteerState: db.prepare('UPDATE runs SET steer_state = ? WHERE id = ?'),
      nextSeq: db.prepare<[string], { next: number }>(
        'SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM runs WHERE session_id = ?',
      ),
      insertRun: db.prepare(
        'INSERT INTO runs (id, session_id, operation_id, text, state, seq, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      setRunState: db.prepare('UPDATE runs SET state = ?, ended_at = ? WHERE id = ?'),
      setRunFailure: db.prepare('UPDATE runs SET failure = ? WHERE id = ?'),
      command: db.prepare<[string, string], RawCommand>(`${COMMAND_SELECT} WHERE c.run_id = ? AND c.command_id = ?`),
      commandsOfRun: db.prepare<[string], RawCommand>(
        `${COMMAND_SELECT} WHERE c.run_id = ? ORDER BY c.started_at, c.rowid`,
      ),
      runningCommands: db.prepare<[], RawCommand>(`${COMMAND_SELECT} WHERE c.status = 'running'`),
      insertCommand: db.prepare(
        `INSERT INTO commands (run_id, command_id, session_id, command, status, started_at) VALUES (?, ?, ?, ?, 'running', ?)`,
      ),
      insertCommandIfAbsent: db.prepare(
        `INSERT INTO commands (run_id, command_id, session_id, command, status, started_at) VALUES (?, ?, ?, ?, 'running', ?) ON CONFLICT (run_id, command_id) DO NOTHING`,
      ),
      endCommand: db.prepare(
        'UPDATE commands SET status = ?, exit_code = ?, error = ?, ended_at = ? WHERE run_id = ? AND command_id = ?',
      ),
      deleteSession: db.prepare('DELETE FROM sessions WHERE id = ?'),
      renameSession: db.prepare('UPDATE sessions SET title = ? WHERE id = ?'),
      setAgentTitle: db.prepare('UPDATE sessions SET agent_title = ? WHERE id = ? AND agent_title IS NOT ?'),
      insertPointer: db.prepare(
        `INSERT INTO command_output_pointers (run_id, command_id, thread_id, turn_id, item_id, byte_length) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (run_id, command_id) DO UPDATE SET thread_id = excluded.thread_id, turn_id = excluded.turn_id, item_id = excluded.item_id, byte_length = excluded.byte_length`,
      ),
      pointer: db.prepare<[string, string], OutputPointer>(
        'SELECT thread_id AS threadId, turn_id AS turnId, item_id AS itemId, byte_length AS byteLength FROM command_output_pointers WHERE run_id = ? AND command_id = ?',
      ),
      senderOfRun: db.prepare<[string, string], MessageSender>(
        `SELECT m.sender_session_id AS sessionId, s.title, m.hop, m.delivery FROM chat_session_messages m
         JOIN sessions s ON s.id = m.sender_session_id WHERE m.operation_id = ? AND m.recipient_session_id = ?`,
      ),
      attachmentsOfRun: db.prepare<
        [string],
        { uploadId: string; name: string; mimeType: string; byteLength: number; sha256: string }
      >(
        `SELECT u.id AS uploadId, u.name, u.mime_type AS mimeType, u.byte_length AS byteLength, u.sha256
         FROM run_attachments ra JOIN attachment_uploads u ON u.id = ra.upload_id WHERE ra.run_id = ? ORDER BY ra.position`,
      ),
      settle: db.prepare(
        'INSERT INTO run_settlements (run_id, text, created_at) VALUES (?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET text = excluded.text',
      ),
    };
  }

  /** Registers the folders the runtime was started with; a folder keeps its id across starts. */
  ensureProjects(directories: string[]): Project[] {
    return this.db.transaction(() =>
      directories.map((directory) => {
        const existing = this.stmts.projectByDir.get(directory);
        if (existing) return existing;
        const project = { id: crypto.randomUUID(), name: path.basename(directory) || directory, directory };
        this.stmts.insertProject.run(project.id, project.name, project.directory, Date.now());
        return project;
      }),
    )();
  }

  session(id: string): Session | undefined {
    const raw = this.stmts.session.get(id);
    return raw && toSession(raw);
  }

  sessions(projectId?: string): Session[] {
    return (projectId ? this.stmts.sessionsOfProject.all(projectId) : this.stmts.sessionsAll.all()).map(toSession);
  }

  /** `worktree`: the session's own branch and worktree (SES-10). */
  createSession(projectId: string, agent: AgentKind, title: string, worktree?: SessionWorktree): Session {
    const session: Session = {
      id: crypto.randomUUID(),
      projectId,
      agent,
      title,
      createdAt: Date.now(),
      ...(worktree ? { worktree } : {}),
    };
    this.stmts.insertSession.run(
      session.id,
      projectId,
      agent,
      title,
      session.createdAt,
      worktree?.branch ?? null,
      worktree?.path ?? null,
    );
    return session;
  }

  /** UX-3: false when there is no such session. */
  renameSession(id: string, title: string): boolean {
    return this.stmts.renameSession.run(title, id).changes > 0;
  }

  /** UX-8: the title the agent gave the conversation; true when it changed. */
  setAgentTitle(id: string, title: string): boolean {
    return this.stmts.setAgentTitle.run(title, id, title).changes > 0;
  }

  deleteSessionRow(id: string): void {
    this.stmts.deleteSession.run(id);
  }

  run(id: string): RunRecord | undefined {
    const raw = this.stmts.run.get(id);
    return raw && this.withAttachments(toRun(raw));
  }

  /** ATT-1, MSG-1: the run as its message row shows it, with its attachments and the session that sent it. */
  private withAttachments(run: RunRecord): RunRecord {
    const attachments = this.stmts.attachmentsOfRun.all(run.id);
    const fromSession = run.operationId.startsWith('msg-')
      ? this.stmts.senderOfRun.get(run.operationId, run.sessionId)
      : undefined;
    return { ...run, ...(attachments.length > 0 ? { attachments } : {}), ...(fromSession ? { fromSession } : {}) };
  }

  runByOperation(sessionId: string, operationId: string): RunRecord | undefined {
    const raw = this.stmts.runByOperation.get(sessionId, operationId);
    return raw && toRun(raw);
  }

  /** Runs of a session older than `seq`, newest first (TL-4 paging). */
  runsBefore(sessionId: string, seq: number, limit: number): RunRecord[] {
    return this.stmts.runsBefore.all(sessionId, seq, limit).map((r) => this.withAttachments(toRun(r)));
  }

  /** Runs of a session from `seq` on, oldest first. */
  runsFrom(sessionId: string, seq: number, limit: number): RunRecord[] {
    return this.stmts.runsFrom.all(sessionId, seq, limit).map((r) => this.withAttachments(toRun(r)));
  }

  /** Runs of a session accepted at or after `createdAt`, oldest first. */
  runsSince(sessionId: string, createdAt: number): RunRecord[] {
    return this.stmts.runsSince.all(sessionId, createdAt).map((r) => this.withAttachments(toRun(r)));
  }

  /**
   * The app run that sent a user message found in the agent's history (TL-4): `clientId` is the
   * operation id the app sent it with, or the message uuid a Claude operation recorded for it.
   */
  runOfUserMessage(sessionId: string, clientId: string): RunRecord | undefined {
    const raw =
      this.stmts.runByOperation.get(sessionId, clientId) ?? this.stmts.runOfNativeMessage.get(sessionId, clientId);
    return raw && this.withAttachments(toRun(raw));
  }

  /** The app's row for a command the agent ran in this session (the newest, should a command id repeat). */
  commandInSession(sessionId: string, commandId: string): CommandRow | undefined {
    const raw = this.stmts.commandInSession.get(sessionId, commandId);
    return raw && commandRowOf(raw);
  }

  /** One run's rows: its message, its commands, its settled row (SES-3). */
  rowsOfRun(run: RunRecord): TimelineRow[] {
    const settlement = this.stmts.settlement.get(run.id);
    return [
      messageRowOf(run),
      ...this.commandsOfRun(run.id),
      ...(settlement ? [settledRowOf(run.sessionId, settlement)] : []),
    ];
  }

  runsInState(state: MessageState): RunRecord[] {
    return this.stmts.runsInState.all(state).map(toRun);
  }

  insertRun(sessionId: string, operationId: string, text: string): RunRecord {
    const { next } = this.stmts.nextSeq.get(sessionId)!;
    const run: RunRecord = {
      id: crypto.randomUUID(),
      sessionId,
      operationId,
      text,
      state: 'queued',
      seq: next,
      createdAt: Date.now(),
    };
    this.stmts.insertRun.run(run.id, sessionId, operationId, text, run.state, run.seq, run.createdAt);
    return run;
  }

  setRunState(runId: string, state: MessageState): void {
    this.stmts.setRunState.run(state, state === 'queued' || state === 'running' ? null : Date.now(), runId);
  }

  /** Steering messages the agent was asked to take but whose delivery is not proven (ACC-6). */
  unfinishedSteers(): RunRecord[] {
    return this.stmts.unfinishedSteers.all().map(toRun);
  }

  setSteerState(runId: string, state: StoredSteerState | null): void {
    this.stmts.setSteerState.run(state, runId);
  }

  /** Records why a run failed (ACC-3); the message row shows it. */
  setRunFailure(runId: string, failure: AgentFailure): void {
    this.stmts.setRunFailure.run(JSON.stringify(failure), runId);
  }

  insertCommand(runId: string, commandId: string, sessionId: string, command: string): void {
    this.stmts.insertCommand.run(runId, commandId, sessionId, command, Date.now());
  }

  endCommand(
    runId: string,
    commandId: string,
    status: CommandStatus,
    exitCode: number | null,
    error: string | null,
  ): void {
    this.stmts.endCommand.run(status, exitCode, error, Date.now(), runId, commandId);
  }

  /**
   * A command whose output only the agent's history holds (OUT-7): row and pointer together. The
   * row may exist already, made running when the agent started the command (TL-3); it keeps its
   * start, and the pointer takes the one given now.
   */
  insertHistoryCommand(
    runId: string,
    commandId: string,
    sessionId: string,
    command: string,
    pointer: OutputPointer,
  ): void {
    this.db.transaction(() => {
      this.stmts.insertCommandIfAbsent.run(runId, commandId, sessionId, command, Date.now());
      this.stmts.insertPointer.run(
        runId,
        commandId,
        pointer.threadId,
        pointer.turnId,
        pointer.itemId,
        pointer.byteLength,
      );
    })();
  }

  outputPointer(runId: string, commandId: string): OutputPointer | undefined {
    return this.stmts.pointer.get(runId, commandId);
  }

  settleRun(runId: string, text: string): void {
    this.stmts.settle.run(runId, text, Date.now());
  }

  commandRow(runId: string, commandId: string): CommandRow | undefined {
    const raw = this.stmts.command.get(runId, commandId);
    return raw && commandRowOf(raw);
  }

  commandsOfRun(runId: string): CommandRow[] {
    return this.stmts.commandsOfRun.all(runId).map(commandRowOf);
  }

  runningCommands(): CommandRow[] {
    return this.stmts.runningCommands.all().map(commandRowOf);
  }
}
