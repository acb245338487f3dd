import { MAX_COMMAND_OUTPUT_RANGE_BYTES } from '../../../../lib/protocol/version';
import { notFound, unavailable } from '../../errors';
import type { ProcessGroupLedger } from '../../process/processGroupLedger';
import type { Db } from '../../store/database';
import type { Agent, AgentOutputSlice, AgentRunContext, OutputPointer } from '../agent';
import { locateClaude, type ClaudeProgram } from '../agentLocator';
import { ClaudeStore } from './claudeStore';
import type { HostEvent } from './hostProtocol';
import { runAgentHost } from './hostProcess';
import { claudeTurnInput } from '../../attachments/agentInput';

export const RESULT_NOT_SAVED_MESSAGE = 'This command output is not in the saved Claude conversation.';

/**
 * Real Claude Code sessions through the Claude Agent SDK in a separate host process (SES-2,
 * STO-1): one host per run and one per history read. Bash output stays in Claude's
 * transcript; its row carries a pointer and no bytes, and every read goes through a host (OUT-7).
 */
export class ClaudeAgent implements Agent {
  readonly kind = 'claude' as const;
  readonly store: ClaudeStore;
  private readonly program: ClaudeProgram | null;

  constructor(
    db: Db,
    env: NodeJS.ProcessEnv = process.env,
    private readonly processes?: Pick<ProcessGroupLedger, 'trackerFor'>,
  ) {
    this.store = new ClaudeStore(db);
    this.program = locateClaude(env);
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
    const { messageUuid } = this.store.claimOperation(context.sessionId, context.operationId, context.runId, context.text);
    const texts: string[] = [];
    let done: Extract<HostEvent, { type: 'done' }> | null = null;
    let commands = 0;
    const exit = await runAgentHost(
      { type: 'run', sdkModule: program.sdkModule, executable: program.executable, cwd: context.cwd, nativeSessionId, messageUuid, ...claudeTurnInput(context) },
      (event) => {
        if (event.type === 'text') texts.push(event.text);
        else if (event.type === 'done') done = event;
        else if (event.type === 'command') {
          commands += 1;
          context.recordHistoryCommand(
            String(commands),
            event.command,
            { status: 'exited', exitCode: event.exitCode },
            { threadId: nativeSessionId, turnId: event.turnId, itemId: event.itemId, byteLength: event.byteLength },
          );
        }
      },
      context.signal,
      this.processes?.trackerFor({ purpose: 'claude host' }),
    );
    if (context.signal.aborted) return;
    const outcome = done as Extract<HostEvent, { type: 'done' }> | null;
    if (!outcome?.ok) throw unavailable(outcome?.error ?? `The Claude agent host stopped (${exit.code}): ${exit.stderr.slice(0, 500)}`);
    if (texts.length > 0) context.settle(texts.join('\n\n'));
  }

  /** One slice (≤ 256 KiB) of a Bash result, read by a new host from the saved conversation (OUT-7). */
  async readHistoryOutput(sessionId: string, cwd: string, pointer: OutputPointer, offset: number, length: number): Promise<AgentOutputSlice> {
    const program = this.requireProgram();
    let answer: HostEvent | null = null;
    const exit = await runAgentHost(
      {
        type: 'toolOutput',
        sdkModule: program.sdkModule,
        cwd,
        nativeSessionId: pointer.threadId,
        itemId: pointer.itemId,
        offset,
        length: Math.min(length, MAX_COMMAND_OUTPUT_RANGE_BYTES),
      },
      (event) => {
        if (event.type === 'output' || event.type === 'missing' || event.type === 'done') answer = event;
      },
      undefined,
      this.processes?.trackerFor({ purpose: 'claude host' }),
    );
    const event = answer as HostEvent | null;
    if (event?.type === 'output') return { bytes: Buffer.from(event.dataBase64, 'base64'), availableBytes: event.availableBytes };
    if (event?.type === 'missing') throw notFound(RESULT_NOT_SAVED_MESSAGE, { sessionId });
    throw unavailable(`The Claude agent host could not read the conversation (${exit.code}).`);
  }
}
