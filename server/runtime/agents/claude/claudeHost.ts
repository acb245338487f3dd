/**
 * The Claude agent host (SES-2, OUT-7): a process started for one request, which talks to Claude
 * Code only through the Claude Agent SDK and exits. `run` sends one user message and reports
 * each Bash result as a pointer and a size; `toolOutput` loads the conversation with
 * getSessionMessages and answers one slice of one result. The runtime itself never opens a
 * Claude file.
 */
import readline from 'node:readline';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { HostRequestSchema, type HostEvent, type HostRequest } from './hostProtocol';
import { claudeUserContent } from '../../attachments/claudeContent';
import { bashExitCode, resolvePersistedResult, toolResultText } from './toolResultText';

interface ClaudeSdk {
  query(params: { prompt: AsyncIterable<unknown>; options: Record<string, unknown> }): AsyncIterable<unknown>;
  getSessionMessages(sessionId: string, options: { dir: string }): Promise<unknown[]>;
}

const ToolUseSchema = z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()) });
const ToolResultSchema = z.object({ type: z.literal('tool_result'), tool_use_id: z.string(), content: z.unknown().optional(), is_error: z.boolean().optional() });
const TextBlockSchema = z.object({ type: z.literal('text'), text: z.string() });
const SdkMessageSchema = z.object({
  type: z.string(),
  uuid: z.string().optional(),
  message: z.object({ content: z.union([z.string(), z.array(z.unknown())]) }).passthrough().optional(),
  subtype: z.string().optional(),
  is_error: z.boolean().optional(),
});

function emit(event: HostEvent): void {
  process.stdout.write(JSON.stringify(event) + '\n');
}

/** Exits once every event line has left: stdout to a pipe is asynchronous, and exit would cut it. */
function exitAfterOutput(code: number): void {
  process.stdout.write('', () => process.exit(code));
}

async function loadSdk(sdkModule: string): Promise<ClaudeSdk> {
  const loaded = (await import(pathToFileURL(sdkModule).href)) as Partial<ClaudeSdk>;
  if (typeof loaded.query !== 'function' || typeof loaded.getSessionMessages !== 'function') throw new Error('The Claude Agent SDK lacks query or getSessionMessages.');
  return loaded as ClaudeSdk;
}

function blocksOf(message: z.infer<typeof SdkMessageSchema>): unknown[] {
  const content = message.message?.content;
  return Array.isArray(content) ? content : [];
}

async function run(request: Extract<HostRequest, { type: 'run' }>, sdk: ClaudeSdk): Promise<void> {
  const saved = await sdk.getSessionMessages(request.nativeSessionId, { dir: request.cwd });
  const abort = new AbortController();
  process.once('SIGTERM', () => abort.abort());
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  async function* prompt() {
    yield { type: 'user', uuid: request.messageUuid, session_id: '', parent_tool_use_id: null, message: { role: 'user', content: claudeUserContent(request.text, request.images) } };
  }
  const bashCommands = new Map<string, string>();
  const options: Record<string, unknown> = {
    cwd: request.cwd,
    env,
    settingSources: [],
    allowedTools: ['Bash'],
    abortController: abort,
    ...(saved.length > 0 ? { resume: request.nativeSessionId } : { sessionId: request.nativeSessionId }),
    ...(request.executable ? { pathToClaudeCodeExecutable: request.executable } : {}),
  };
  let failure: string | undefined;
  for await (const raw of sdk.query({ prompt: prompt(), options })) {
    const parsed = SdkMessageSchema.safeParse(raw);
    if (!parsed.success) continue;
    const message = parsed.data;
    if (message.type === 'result' && message.is_error) failure = `Claude ended the turn with an error (${message.subtype ?? 'unknown'}).`;
    for (const block of blocksOf(message)) {
      const toolUse = ToolUseSchema.safeParse(block);
      if (message.type === 'assistant' && toolUse.success && toolUse.data.name === 'Bash') {
        bashCommands.set(toolUse.data.id, String(toolUse.data.input.command ?? ''));
        continue;
      }
      const text = TextBlockSchema.safeParse(block);
      if (message.type === 'assistant' && text.success) {
        emit({ type: 'text', text: text.data.text });
        continue;
      }
      const result = ToolResultSchema.safeParse(block);
      if (message.type !== 'user' || !result.success) continue;
      const command = bashCommands.get(result.data.tool_use_id);
      if (command === undefined) continue;
      const note = toolResultText(result.data.content);
      const whole = resolvePersistedResult(note) ?? note;
      const isError = result.data.is_error ?? false;
      emit({
        type: 'command',
        itemId: result.data.tool_use_id,
        turnId: message.uuid ?? '',
        command,
        byteLength: Buffer.byteLength(whole, 'utf8'),
        exitCode: bashExitCode(whole, isError),
        isError,
      });
    }
  }
  if (abort.signal.aborted) failure = 'cancelled';
  emit(failure ? { type: 'done', ok: false, error: failure } : { type: 'done', ok: true });
}

async function toolOutput(request: Extract<HostRequest, { type: 'toolOutput' }>, sdk: ClaudeSdk): Promise<void> {
  const messages = await sdk.getSessionMessages(request.nativeSessionId, { dir: request.cwd });
  for (const raw of messages) {
    const parsed = SdkMessageSchema.safeParse(raw);
    if (!parsed.success || parsed.data.type !== 'user') continue;
    for (const block of blocksOf(parsed.data)) {
      const result = ToolResultSchema.safeParse(block);
      if (!result.success || result.data.tool_use_id !== request.itemId) continue;
      const whole = resolvePersistedResult(toolResultText(result.data.content));
      if (whole === null) {
        emit({ type: 'missing' });
        return;
      }
      const bytes = Buffer.from(whole, 'utf8');
      const slice = bytes.subarray(Math.min(request.offset, bytes.length), Math.min(request.offset + request.length, bytes.length));
      emit({ type: 'output', availableBytes: bytes.length, dataBase64: slice.toString('base64') });
      return;
    }
  }
  emit({ type: 'missing' });
}

async function main(): Promise<void> {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  const first = await new Promise<string>((resolve) => lines.once('line', resolve));
  lines.close();
  const request = HostRequestSchema.parse(JSON.parse(first));
  const sdk = await loadSdk(request.sdkModule);
  if (request.type === 'run') await run(request, sdk);
  else await toolOutput(request, sdk);
}

main().then(
  () => exitAfterOutput(0),
  (error: unknown) => {
    emit({ type: 'done', ok: false, error: error instanceof Error ? error.message : String(error) });
    exitAfterOutput(1);
  },
);
