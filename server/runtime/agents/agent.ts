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

export interface AgentRunContext {
  runId: string;
  sessionId: string;
  text: string;
  cwd: string;
  /** Aborted by run.cancel (SES-5), session delete and shutdown. */
  signal: AbortSignal;
  startCommand(commandId: string, command: string): CommandHandle;
}

/** One adapter per agent kind behind one interface (SES-2). */
export interface Agent {
  readonly kind: AgentKind;
  /** Whether the agent can run on this machine; a missing one makes sessions.create fail clearly. */
  available(): boolean;
  /** Runs one user message to its end. Resolves when every command it started has completed. */
  run(context: AgentRunContext): Promise<void>;
}
