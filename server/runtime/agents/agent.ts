import type { AgentItem, AgentKind } from '../../../lib/protocol/rows';
import type { AgentCommand, AgentModelInfo, SessionAgentSettings } from '../../../lib/protocol/agents';

/** A cancelled command's error when it was declined and never ran: its row says "declined" (TL-9). */
export const DECLINED_COMMAND_ERROR = 'The command was declined.';

export interface CommandResult {
  status: 'exited' | 'failed' | 'cancelled';
  exitCode: number | null;
  error?: string;
  /** The agent's bounded aggregate of the command's output, when it keeps one (OUT-4). */
  aggregate: Buffer | null;
  /**
   * Reads the agent's own saved copy of the output (null when it keeps none). Called at most once,
   * in the background, only when the command settled with its source unproven (OUT-4).
   */
  readSavedOutput?: () => Promise<Buffer | null>;
}

/** What an agent reports about one command while it runs. */
export interface CommandHandle {
  /** One output delta. Returns false when the agent should stop reading until `whenDrained`. */
  output(delta: Buffer): boolean;
  whenDrained(): Promise<void>;
  complete(result: CommandResult): Promise<void>;
}

/** Where a command's output lives when the agent's own history is its only copy (OUT-7). */
export interface OutputPointer {
  /** The native conversation. */
  threadId: string;
  /** The message in it that holds the result. */
  turnId: string;
  /** The tool call. */
  itemId: string;
  byteLength: number;
}

/** A complete attachment of the message, stored in the data folder (ATT-1, ATT-2). */
export interface AgentAttachment {
  path: string;
  name: string;
  mimeType: string;
  byteLength: number;
}

export interface AgentRunContext {
  runId: string;
  sessionId: string;
  /** The chat.send operation id of this message (STO-2). */
  operationId: string;
  text: string;
  cwd: string;
  /** Aborted by run.cancel (SES-5), session delete and shutdown. */
  signal: AbortSignal;
  startCommand(commandId: string, command: string): CommandHandle;
  /**
   * A command whose output stays in the agent's history, started: its row is there, running, from
   * the moment the agent asked for it, so it keeps its place among what comes while it runs (TL-3).
   */
  startHistoryCommand(commandId: string, command: string, pointer: OutputPointer): void;
  /** A command whose output stays in the agent's history, ended (started or not): the row gets a pointer, never bytes. */
  recordHistoryCommand(
    commandId: string,
    command: string,
    result: Omit<CommandResult, 'aggregate'>,
    pointer: OutputPointer,
  ): void;
  /** The agent's own history took over: its closing text becomes the run's settled row (SES-3). */
  settle(text: string): void;
  /**
   * One live item of this turn (TL-1, TL-3): kept in the live overlay and published; the same
   * itemId again replaces it in place (streamed text sends its whole text so far).
   */
  item(item: AgentItem): void;
  /** Any agent event, shown or not: resets the stall clock (ACC-3). */
  activity(): void;
  /** The session's agent settings at the start of this turn (ACC-5). */
  settings: SessionAgentSettings;
  /** The message's attachments (ATT-2): images go to the agent natively, other files by path. */
  attachments?: AgentAttachment[];
}

/** One entry of an agent's own saved history, in the order the agent keeps it (TL-4). */
export type HistoryEntry = (
  | { kind: 'item'; item: AgentItem }
  /** A user message; `clientId` is what the app sent it with (Codex clientUserMessageId, Claude message uuid). */
  | { kind: 'user'; itemId: string; text: string; createdAt: number; clientId: string | null }
  /** A shell command the agent ran; matched to the app's command row of the same itemId (= commandId). */
  | { kind: 'command'; itemId: string; command: string; createdAt: number }
) & {
  /**
   * The `clientId` of the message that started the entry's turn, when the agent says: the app
   * run the entry belongs to, wherever the page starts (TL-3).
   */
  turnClientId?: string | null;
};

export interface HistoryPageRequest {
  sessionId: string;
  cwd: string;
  /** null: the session's own timeline; a subagent's itemId: that subagent's. */
  parentItemId: string | null;
  /** Opaque cursors the agent gave in an earlier page; both null: the newest page. */
  before: string | null;
  after: string | null;
  limit: number;
}

export interface HistoryPage {
  entries: HistoryEntry[];
  /** Cursor for the page just older than this one; null at the first item. */
  older: string | null;
  /** Cursor for the page just newer; null at the newest item. */
  newer: string | null;
  /**
   * When the entry just before this page began (ms), when the agent tells: a row the history
   * lacks that began after it and before this page's first entry is on this page (TL-3, TL-4).
   */
  startsAfter?: number;
  /**
   * Ids of every item the agent saved for the turns on this page, wherever they are: a row the
   * app recorded whose item is among them is on the page that holds it, not placed again (TL-3).
   */
  savedItemIds?: string[];
  /** On the newest page: the client id of the message that started the newest saved turn, when the agent tells. */
  newestClientId?: string | null;
}

/** One slice of output read through the agent (OUT-7). */
export interface AgentOutputSlice {
  bytes: Buffer;
  availableBytes: number;
}

/** A model the agent offers (ACC-5): the protocol's shape. */
export type AgentModel = AgentModelInfo;

/** A message for a running turn (ACC-6), and the app run it was sent as. */
export interface SteerMessage {
  text: string;
  /** The steer run's id: the saved history names it, so its row is that run's message row (TL-3). */
  runId: string;
  /** The app's id for it (its run's operation id): Codex's clientUserMessageId. */
  operationId: string;
  /** The agent's own events show its model was sent the message. */
  reached(): void;
}

/** One adapter per agent kind behind one interface (SES-2). */
export interface Agent {
  readonly kind: AgentKind;
  /** Whether the agent can run on this machine; a missing one makes sessions.create fail clearly. */
  available(): boolean;
  /** Why it is not available, for people. */
  unavailableReason?(): string;
  /** Reads output that lives in the agent's history (OUT-7). */
  readHistoryOutput?(
    sessionId: string,
    cwd: string,
    pointer: OutputPointer,
    offset: number,
    length: number,
  ): Promise<AgentOutputSlice>;
  /**
   * The agent's saved copy of a settled command's output (OUT-4), null when it keeps none: for a
   * read the runtime queued and did not get to before it stopped.
   */
  readSavedOutput?(sessionId: string, cwd: string, commandId: string): Promise<Buffer | null>;
  /** One page of the agent's own saved history (TL-4): Codex thread/items/list, Claude getSessionMessages. */
  historyPage?(request: HistoryPageRequest): Promise<HistoryPage>;
  /** A slice of one long text of a saved item (TL-1): a diff, a tool result, raw text. */
  readItemText?(request: {
    sessionId: string;
    cwd: string;
    parentItemId: string | null;
    itemId: string;
    field: string;
    offset: number;
    length: number;
  }): Promise<AgentOutputSlice>;
  /**
   * A message sent while a turn runs, given to that turn (ACC-6: Codex turn/steer, Claude streaming
   * input). Resolves once the agent acknowledged it; `message.reached` is called later, once the
   * agent's own events show its model was sent the message (never, when the turn ends first).
   * The agent saves the text under the message's operation id (or a message id linked to its run),
   * so the saved history names that run and its row is the app's message row, once (TL-3).
   */
  steer?(sessionId: string, runId: string, message: SteerMessage): Promise<void>;
  /** Models the user can pick for a session (ACC-5): Codex model/list, Claude supportedModels. */
  models?(accountKey: string | null): Promise<AgentModel[]>;
  /**
   * The slash commands a session can send (UX-10): Claude Code's supportedCommands in the project
   * folder, Codex's custom prompts in the session's profile home.
   */
  commands?(session: { sessionId: string; cwd: string; settings: SessionAgentSettings }): Promise<AgentCommand[]>;
  /** Stops child processes (runtime shutdown). */
  close?(): Promise<void>;
  /** Runs one user message to its end. Resolves when every command it started has completed. */
  run(context: AgentRunContext): Promise<void>;
}
