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
import { forwardLiveMessage, savedMessageUuid } from './claudeLiveEvents';
import { interruptedTurnEnd } from './claudeTurnEnd';
import { readHistoryPage, readItemText, type ClaudeHistorySdk } from './claudeHostReads';
import { ClaudeItemMapper } from './claudeItems';
import { ControlChannel, PromptQueue, userMessage } from './claudeHostControl';
import { describe, savedSessions, type QuerySdk } from './claudeHostQueries';
import { failureCode, isSignedOut, rateLimitReading, resultFailure } from './claudeHostSignals';
import { HostRequestSchema, type HostEvent, type HostRequest } from './hostProtocol';
import { claudeUserContent } from '../../attachments/claudeContent';
import { resolvePersistedResult, toolResultText } from './toolResultText';

interface ClaudeSdk extends ClaudeHistorySdk, QuerySdk {
}

const ToolResultSchema = z.object({ type: z.literal('tool_result'), tool_use_id: z.string(), content: z.unknown().optional(), is_error: z.boolean().optional() });
const SdkMessageSchema = z.object({
  type: z.string(),
  uuid: z.string().optional(),
  message: z.object({ content: z.union([z.string(), z.array(z.unknown())]) }).passthrough().optional(),
  subtype: z.string().optional(),
  is_error: z.boolean().optional(),
});

const SEARCH_TOOLS = ['Grep', 'Glob'];

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

function hostEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return env;
}

async function run(request: Extract<HostRequest, { type: 'run' }>, sdk: ClaudeSdk, lines: readline.Interface): Promise<void> {
  const saved = await sdk.getSessionMessages(request.nativeSessionId, { dir: request.cwd, limit: 1 });
  const abort = new AbortController();
  process.once('SIGTERM', () => abort.abort());
  const env = hostEnv();
  // ACC-6: the input stays open while the turn runs, for steering messages.
  // ATT-2: the first message carries the stored images as image blocks.
  const input = new PromptQueue(userMessage(request.messageUuid, claudeUserContent(request.text, request.images)), (message) =>
    emit({ type: 'steerTaken', messageUuid: message.uuid }),
  );
  let interrupted = false;
  let stop: () => void = () => abort.abort();
  const control = new ControlChannel(lines, emit, {
    steer: (text, messageUuid) => input.push(userMessage(messageUuid, text)),
    interrupt: () => {
      interrupted = true;
      stop();
    },
    gone: () => abort.abort(),
  });
  // TL-5: Claude runs as the user's own Claude Code: their settings, the project's and the local
  // ones (CLAUDE.md, MCP servers, permission rules), every tool, under the session's permission mode.
  const options: Record<string, unknown> = {
    cwd: request.cwd,
    env,
    settingSources: ['user', 'project', 'local'],
    includePartialMessages: true,
    abortController: abort,
    canUseTool: control.canUseTool,
    ...(request.permissionMode ? { permissionMode: request.permissionMode } : {}),
    ...(request.permissionMode === 'bypassPermissions' ? { allowDangerouslySkipPermissions: true } : {}),
    ...(request.model ? { model: request.model } : {}),
    // TL-1 TL-5: native Claude Code builds leave Grep and Glob out of the default tools (search runs
    // as grep/find in Bash); naming them in allowedTools is the SDK's way to offer them, so a search
    // is a tool row with its result. Both only read, as Read does.
    allowedTools: [...SEARCH_TOOLS, ...(request.allowedTools ?? [])],
    ...(request.additionalDirectories?.length ? { additionalDirectories: request.additionalDirectories } : {}),
    ...(saved.length > 0 ? { resume: request.nativeSessionId } : { sessionId: request.nativeSessionId }),
    ...(request.executable ? { pathToClaudeCodeExecutable: request.executable } : {}),
  };
  let failure: string | undefined;
  let errorCode: string | undefined;
  const mapper = new ClaudeItemMapper({ source: 'live', turnId: request.messageUuid });
  // TL-6: the turn's own message is saved under the uuid the app gave it; later ones follow it.
  let lastSavedUuid = request.messageUuid;
  const query = sdk.query({ prompt: input.messages(), options });
  stop = () => void query.interrupt?.().catch(() => abort.abort());
  if (interrupted) stop();
  // ACC-3: with no sign-in Claude Code ends at once with "Not logged in"; say it that way.
  const account = query.accountInfo ? await query.accountInfo().catch(() => null) : null;
  if (account && typeof account === 'object' && isSignedOut(account)) {
    input.close();
    emit({ type: 'done', ok: false, errorCode: 'signed_out', error: 'Claude is not signed in on this account.' });
    abort.abort();
    return;
  }
  try {
    for await (const raw of query) {
      const reading = rateLimitReading(raw);
      if (reading) emit(reading);
      errorCode = failureCode(raw) ?? errorCode;
      const failed = resultFailure(raw);
      if (failed) failure = failed.text ? `Claude ended the turn with an error: ${failed.text}` : `Claude ended the turn with an error (${failed.subtype}).`;
      if ((raw as { type?: unknown }).type === 'result') input.resultArrived();
      const parsed = SdkMessageSchema.safeParse(raw);
      if (parsed.success && parsed.data.type === 'user' && blocksOf(parsed.data).some((b) => ToolResultSchema.safeParse(b).success)) input.toolResultSent();
      // A command cut short by Stop leaves no row, as when the host is stopped (SES-5).
      lastSavedUuid = savedMessageUuid(raw) ?? lastSavedUuid;
      forwardLiveMessage(
        mapper.map(raw),
        (event) => {
          if (!interrupted) emit(event);
          else if (event.type === 'item') emit({ ...event, item: interruptedTurnEnd(event.item) });
          else if (event.type !== 'command') emit(event);
        },
        lastSavedUuid,
      );
    }
  } catch (error) {
    // The SDK throws after an error result or a stop; the result already said what happened.
    if (!failure && !abort.signal.aborted && !interrupted) throw error;
  }
  if (abort.signal.aborted || interrupted) {
    failure = 'cancelled';
    errorCode = 'cancelled';
  }
  emit(failure ? { type: 'done', ok: false, error: failure, ...(errorCode ? { errorCode } : {}) } : { type: 'done', ok: true });
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
  const request = HostRequestSchema.parse(JSON.parse(first));
  // Only a run reads further lines (permission answers, steering, interrupt).
  if (request.type !== 'run') lines.close();
  const sdk = await loadSdk(request.sdkModule);
  if (request.type === 'run') await run(request, sdk, lines);
  else if (request.type === 'historyPage') emit(await readHistoryPage(sdk, request));
  else if (request.type === 'itemText') emit(await readItemText(sdk, request));
  else if (request.type === 'describe') await describe(request, sdk, hostEnv(), emit);
  else if (request.type === 'savedSessions') await savedSessions(request, sdk, emit);
  else await toolOutput(request, sdk);
}

main().then(
  () => exitAfterOutput(0),
  (error: unknown) => {
    emit({ type: 'done', ok: false, error: error instanceof Error ? error.message : String(error) });
    exitAfterOutput(1);
  },
);
