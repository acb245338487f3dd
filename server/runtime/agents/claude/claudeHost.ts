/**
 * The Claude agent host (SES-2, OUT-7): a process started for one request, which talks to Claude
 * Code only through the Claude Agent SDK and exits. `run` sends one user message and reports
 * each event as a timeline item (TL-1) and each Bash result as a pointer and a size;
 * `historyPage` answers one page of the saved conversation or of a subagent (TL-4); `itemText`
 * and `toolOutput` answer one slice of one saved text. The runtime itself never opens a Claude file.
 */
import readline from 'node:readline';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { forwardLiveMessage } from './claudeLiveEvents';
import { readHistoryPage, readItemText, type ClaudeHistorySdk } from './claudeHostReads';
import { ClaudeItemMapper } from './claudeItems';
import { HostRequestSchema, type HostEvent, type HostRequest } from './hostProtocol';
import { resolvePersistedResult, toolResultText } from './toolResultText';

interface ClaudeSdk extends ClaudeHistorySdk {
  query(params: { prompt: AsyncIterable<unknown>; options: Record<string, unknown> }): AsyncIterable<unknown>;
}

const ToolResultSchema = z.object({ type: z.literal('tool_result'), tool_use_id: z.string(), content: z.unknown().optional(), is_error: z.boolean().optional() });
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
  const needed = ['query', 'getSessionMessages', 'getSubagentMessages', 'listSubagents'] as const;
  const missing = needed.filter((name) => typeof loaded[name] !== 'function');
  if (missing.length > 0) throw new Error(`The Claude Agent SDK lacks ${missing.join(', ')}.`);
  return loaded as ClaudeSdk;
}

function blocksOf(message: z.infer<typeof SdkMessageSchema>): unknown[] {
  const content = message.message?.content;
  return Array.isArray(content) ? content : [];
}

async function run(request: Extract<HostRequest, { type: 'run' }>, sdk: ClaudeSdk): Promise<void> {
  const saved = await sdk.getSessionMessages(request.nativeSessionId, { dir: request.cwd, limit: 1 });
  const abort = new AbortController();
  process.once('SIGTERM', () => abort.abort());
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  async function* prompt() {
    yield { type: 'user', uuid: request.messageUuid, session_id: '', parent_tool_use_id: null, message: { role: 'user', content: request.text } };
  }
  // TL-5: Claude runs as the user's own Claude Code: their settings, the project's and the local
  // ones (CLAUDE.md, MCP servers, permission rules), every tool, under the session's permission mode.
  const options: Record<string, unknown> = {
    cwd: request.cwd,
    env,
    settingSources: ['user', 'project', 'local'],
    includePartialMessages: true,
    abortController: abort,
    ...(request.permissionMode ? { permissionMode: request.permissionMode } : {}),
    ...(saved.length > 0 ? { resume: request.nativeSessionId } : { sessionId: request.nativeSessionId }),
    ...(request.executable ? { pathToClaudeCodeExecutable: request.executable } : {}),
  };
  let failure: string | undefined;
  const mapper = new ClaudeItemMapper({ source: 'live', turnId: request.messageUuid });
  for await (const raw of sdk.query({ prompt: prompt(), options })) {
    const parsed = SdkMessageSchema.safeParse(raw);
    if (parsed.success && parsed.data.type === 'result' && parsed.data.is_error) failure = `Claude ended the turn with an error (${parsed.data.subtype ?? 'unknown'}).`;
    forwardLiveMessage(mapper.map(raw), emit);
  }
  if (abort.signal.aborted) failure = 'cancelled';
  emit(failure ? { type: 'done', ok: false, error: failure } : { type: 'done', ok: true });
}

async function toolOutput(request: Extract<HostRequest, { type: 'toolOutput' }>, sdk: ClaudeSdk): Promise<void> {
  // Bash results of the conversation only: a subagent's Bash is a tool-call row (TL-1).
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
  else if (request.type === 'historyPage') emit(await readHistoryPage(sdk, request));
  else if (request.type === 'itemText') emit(await readItemText(sdk, request));
  else await toolOutput(request, sdk);
}

main().then(
  () => exitAfterOutput(0),
  (error: unknown) => {
    emit({ type: 'done', ok: false, error: error instanceof Error ? error.message : String(error) });
    exitAfterOutput(1);
  },
);
