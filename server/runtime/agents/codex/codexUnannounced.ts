import { z } from 'zod';
import type { CommandExecutionItem } from './codexProtocol';
import { parseJsonWith } from '../../../../lib/shared/parseJsonWith';

/** Codex's shell tools: the call's arguments name the command as `cmd` (exec_command) or `command`. */
const SHELL_TOOLS = new Set(['exec_command', 'shell', 'shell_command', 'local_shell']);

const RawItemSchema = z.object({
  threadId: z.string(),
  turnId: z.string(),
  item: z.object({ type: z.string() }).passthrough(),
});
const FunctionCallSchema = z.object({
  type: z.literal('function_call'),
  name: z.string(),
  arguments: z.string(),
  call_id: z.string(),
});
const FunctionCallOutputSchema = z.object({
  type: z.literal('function_call_output'),
  call_id: z.string(),
  output: z.union([z.string(), z.array(z.object({ type: z.string(), text: z.string().optional() }).passthrough())]),
});
const ShellArgumentsSchema = z.object({
  cmd: z.string().optional(),
  command: z.union([z.string(), z.array(z.string())]).optional(),
});

const EXIT_LINE = /^Process exited with code (-?\d+)$/m;
const OUTPUT_MARK = '\nOutput:\n';

function commandOf(argumentsJson: string): string | null {
  const args = parseJsonWith(ShellArgumentsSchema, argumentsJson);
  if (!args) return null;
  const { cmd, command } = args;
  return cmd ?? (Array.isArray(command) ? command.join(' ') : command) ?? null;
}

/**
 * Codex 0.171 sends no item event at all, live or in its saved history, for some commands that end
 * at once (a sandbox that cannot start, a write refused at once): only the model's call and the
 * output it got say the command ran. This keeps those two per turn, from the thread's raw items,
 * so such a command still gets its row with its true state and the output the model read (SBX-2).
 */
export class UnannouncedCommands {
  private readonly calls = new Map<string, string>();
  private readonly outputs = new Map<string, string>();

  /** A `rawResponseItem/completed` of this turn's thread. */
  note(params: unknown): void {
    const raw = RawItemSchema.safeParse(params);
    if (!raw.success) return;
    const call = FunctionCallSchema.safeParse(raw.data.item);
    if (call.success) {
      const command = SHELL_TOOLS.has(call.data.name) ? commandOf(call.data.arguments) : null;
      if (command !== null) this.calls.set(call.data.call_id, command);
      return;
    }
    const output = FunctionCallOutputSchema.safeParse(raw.data.item);
    if (!output.success) return;
    const { output: body } = output.data;
    this.outputs.set(
      output.data.call_id,
      typeof body === 'string' ? body : body.map((part) => part.text ?? '').join(''),
    );
  }

  /** The shell calls of the turn that Codex answered but never announced, as Codex would have reported them. */
  missing(announced: (callId: string) => boolean): CommandExecutionItem[] {
    const items: CommandExecutionItem[] = [];
    for (const [callId, command] of this.calls) {
      const answer = this.outputs.get(callId);
      if (answer === undefined || announced(callId)) continue;
      const exit = EXIT_LINE.exec(answer);
      const exitCode = exit ? Number(exit[1]) : null;
      const at = answer.indexOf(OUTPUT_MARK);
      const aggregatedOutput = at >= 0 ? answer.slice(at + OUTPUT_MARK.length) : answer;
      items.push({
        type: 'commandExecution',
        id: callId,
        command,
        status: exitCode === 0 ? 'completed' : 'failed',
        aggregatedOutput,
        exitCode,
      });
    }
    return items;
  }
}
