import type { AgentKind } from '../../../lib/protocol/rows';

export interface CommandResult {
  status: 'exited' | 'failed' | 'cancelled';
  exitCode: number | null;
  error?: string;
  /** The agent's bounded aggregate of the command's output, when it keeps one (OUT-4). */
  aggregate: Buffer | null;
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
  /** A command whose output stays in the agent's history: the row gets a pointer, never bytes. */
  recordHistoryCommand(commandId: string, command: string, result: Omit<CommandResult, 'aggregate'>, pointer: OutputPointer): void;
  /** The agent's own history took over: its closing text becomes the run's settled row (SES-3). */
  settle(text: string): void;
}

/** One slice of output read through the agent (OUT-7). */
export interface AgentOutputSlice {
  bytes: Buffer;
  availableBytes: number;
}

/** One adapter per agent kind behind one interface (SES-2). */
export interface Agent {
  readonly kind: AgentKind;
  /** Whether the agent can run on this machine; a missing one makes sessions.create fail clearly. */
  available(): boolean;
  /** Why it is not available, for people. */
  unavailableReason?(): string;
  /** Reads output that lives in the agent's history (OUT-7). */
  readHistoryOutput?(sessionId: string, cwd: string, pointer: OutputPointer, offset: number, length: number): Promise<AgentOutputSlice>;
  /** Stops child processes (runtime shutdown). */
  close?(): Promise<void>;
  /** Runs one user message to its end. Resolves when every command it started has completed. */
  run(context: AgentRunContext): Promise<void>;
}
