/**
 * The Claude agent host (SES-2, SES-8, OUT-7): one long-lived process per account, which talks to
 * Claude Code only through the Claude Agent SDK and answers requests by id, several at a time.
 * `run` sends one user message and reports each event as a timeline item (TL-1) and each Bash
 * result as a pointer and a size; `historyPage` answers one page of the saved conversation or of
 * a subagent (TL-4); `itemText` and `toolOutput` answer one slice of one saved text. The runtime
 * itself never reads a Claude file: it only checks the size and identity of the files a result it
 * keeps came from (resultSources.ts).
 */
import readline from 'node:readline';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { forwardLiveMessage, savedMessageUuid } from './claudeLiveEvents';
import { interruptedTurnEnd } from './claudeTurnEnd';
import { readHistoryPage, readItemText, savedSubagentItems, sliceOf, type ClaudeHistorySdk } from './claudeHostReads';
import { SubagentClosings } from './claudeSubagentClosings';
import { ClaudeItemMapper } from './claudeItems';
import { ControlChannel, PromptQueue, userMessage, type ControlSource } from './claudeHostControl';
import {
  describe,
  noteTerminalCommands,
  savedSessions,
  sessionTitle,
  slashCommands,
  type QuerySdk,
} from './claudeHostQueries';
import { failureCode, isSignedOut, rateLimitReading, resultFailure } from './claudeHostSignals';
import {
  HostInboundSchema,
  PROCESS_TAG_VARIABLE,
  runTag,
  type HostControl,
  type HostEvent,
  type HostOutbound,
  type HostRequest,
  type ResultSource,
} from './hostProtocol';
import { claudeUserContent } from '../../attachments/claudeContent';
import { claudeProjectsDir, persistedResultFile, resolvePersistedResult, toolResultText } from './toolResultText';
import { sourceOf, sourcesHold, transcriptSources } from './resultSources';

interface ClaudeSdk extends ClaudeHistorySdk, QuerySdk {}

const ToolResultSchema = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.unknown().optional(),
  is_error: z.boolean().optional(),
});
const SdkMessageSchema = z.object({
  type: z.string(),
  uuid: z.string().optional(),
  message: z
    .object({ content: z.union([z.string(), z.array(z.unknown())]) })
    .passthrough()
    .optional(),
  subtype: z.string().optional(),
  is_error: z.boolean().optional(),
});

const SEARCH_TOOLS = ['Grep', 'Glob'];

/**
 * The SDK warns on every run that Grep and Glob in allowedTools skip canUseTool, which is what they
 * are there for (TL-5); on stderr that line would read as the reason of any later failure (SES-8).
 */
const EXPECTED_WARNINGS = new Set(['CLAUDE_SDK_CAN_USE_TOOL_SHADOWED']);
process.removeAllListeners('warning');
process.on('warning', (warning: Error & { code?: string }) => {
  if (!EXPECTED_WARNINGS.has(warning.code ?? '')) process.stderr.write(`${warning.name}: ${warning.message}\n`);
});

type Emit = (event: HostEvent) => void;

function write(line: HostOutbound): void {
  process.stdout.write(JSON.stringify(line) + '\n');
}

/** Exits once every event line has left: stdout to a pipe is asynchronous, and exit would cut it. */
function exitAfterOutput(code: number): void {
  process.stdout.write('', () => process.exit(code));
}

const loadedSdks = new Map<string, Promise<ClaudeSdk>>();

/** The SDK is loaded once per module path and kept: the host's point is not to pay for it again. */
function loadSdk(sdkModule: string): Promise<ClaudeSdk> {
  let loading = loadedSdks.get(sdkModule);
  if (!loading) {
    loading = importSdk(sdkModule);
    loadedSdks.set(sdkModule, loading);
    loading.catch(() => loadedSdks.delete(sdkModule));
  }
  return loading;
}

async function importSdk(sdkModule: string): Promise<ClaudeSdk> {
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

/** One request under way: its cancellation, and for a run the control lines sent with its id. */
interface Pending {
  abort: AbortController;
  control: ControlSource & { deliver(control: HostControl): void; end(): void };
}

function pendingRequest(): Pending {
  const abort = new AbortController();
  const controlHandlers: ((control: HostControl) => void)[] = [];
  const goneHandlers: (() => void)[] = [];
  let ended = false;
  return {
    abort,
    control: {
      onControl: (handler) => controlHandlers.push(handler),
      onGone: (handler) => (ended ? handler() : goneHandlers.push(handler)),
      deliver: (control) => controlHandlers.forEach((handler) => handler(control)),
      end: () => {
        if (ended) return;
        ended = true;
        goneHandlers.splice(0).forEach((handler) => handler());
      },
    },
  };
}

/** Reads an SDK query to its end, ignoring what comes and any error. */
async function drain(messages: AsyncIterator<unknown>): Promise<void> {
  try {
    while (!(await messages.next()).done);
  } catch {
    // A stopped query may end with an error; nobody waits for it.
  }
}

async function run(
  request: Extract<HostRequest, { type: 'run' }>,
  sdk: ClaudeSdk,
  pending: Pending,
  emit: Emit,
): Promise<void> {
  const saved = await sdk.getSessionMessages(request.nativeSessionId, { dir: request.cwd, limit: 1 });
  const abort = pending.abort;
  // SES-9: Claude Code and every command it starts carry the run's tag under the host's.
  const env = {
    ...hostEnv(),
    [PROCESS_TAG_VARIABLE]: runTag(process.env[PROCESS_TAG_VARIABLE] ?? '', request.messageUuid),
  };
  // ACC-6: the input stays open while the turn runs, for steering messages.
  // ATT-2: the first message carries the stored images as image blocks.
  const input = new PromptQueue(
    userMessage(request.messageUuid, claudeUserContent(request.text, request.images)),
    (message) => emit({ type: 'steerTaken', messageUuid: message.uuid }),
  );
  let interrupted = false;
  let stop: () => void = () => abort.abort();
  const control = new ControlChannel(pending.control, emit, {
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
    allowedTools: [...SEARCH_TOOLS, ...(request.toolsAllowed ?? []), ...(request.allowedTools ?? [])],
    // MSG-1: the session tool server, besides the user's and the project's own MCP servers.
    ...(request.mcpServers
      ? {
          mcpServers: Object.fromEntries(
            Object.entries(request.mcpServers).map(([name, server]) => [name, { type: 'stdio', ...server }]),
          ),
        }
      : {}),
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
  const messages = query[Symbol.asyncIterator]();
  const closings = new SubagentClosings(
    (toolUseId) => savedSubagentItems(sdk, request, toolUseId),
    (item) => emit({ type: 'item', item }),
  );
  try {
    for (let next = await messages.next(); !next.done; next = await messages.next()) {
      const raw: unknown = next.value;
      noteTerminalCommands(raw);
      const reading = rateLimitReading(raw);
      if (reading) emit(reading);
      errorCode = failureCode(raw) ?? errorCode;
      const failed = resultFailure(raw);
      if (failed)
        failure = failed.text
          ? `Claude ended the turn with an error: ${failed.text}`
          : `Claude ended the turn with an error (${failed.subtype}).`;
      if ((raw as { type?: unknown }).type === 'result') input.resultArrived();
      const parsed = SdkMessageSchema.safeParse(raw);
      if (
        parsed.success &&
        parsed.data.type === 'user' &&
        blocksOf(parsed.data).some((b) => ToolResultSchema.safeParse(b).success)
      )
        input.toolResultSent();
      // A command cut short by Stop gets no result: its row, made when it started, ends cancelled with the turn (SES-5).
      lastSavedUuid = savedMessageUuid(raw) ?? lastSavedUuid;
      const mapped = mapper.map(raw);
      closings.seen(mapped);
      if ((raw as { type?: unknown }).type === 'result') await closings.finish();
      forwardLiveMessage(
        mapped,
        (event) => {
          if (!interrupted) emit(event);
          else if (event.type === 'item') emit({ ...event, item: interruptedTurnEnd(event.item) });
          else if (event.type !== 'command') emit(event);
        },
        lastSavedUuid,
      );
      // ACC-6: a stopped turn has ended at its result. Claude Code's own exit after it takes
      // hundreds of milliseconds more and tells nothing, so the rest drains on its own (and what
      // it leaves carries the run's tag, SES-9); leaving the loop by `break` would wait for it.
      if (interrupted && (raw as { type?: unknown }).type === 'result') {
        void drain(messages);
        break;
      }
    }
  } catch (error) {
    // The SDK throws after an error result or a stop; the result already said what happened.
    if (!failure && !abort.signal.aborted && !interrupted) throw error;
  }
  if (abort.signal.aborted || interrupted) {
    failure = 'cancelled';
    errorCode = 'cancelled';
  }
  emit(
    failure
      ? { type: 'done', ok: false, error: failure, ...(errorCode ? { errorCode } : {}) }
      : { type: 'done', ok: true },
  );
}

/**
 * Bash results read lately, by conversation and tool id (OUT-7, SES-8): a reader pages through one
 * in slices, and the runtime fetches it whole once, so the host keeps the last few whole while the
 * files they came from still hold them.
 */
const recentResults = new Map<string, { bytes: Buffer; sources: ResultSource[] }>();
const RECENT_RESULTS = 4;

/** One slice of a whole result, with the files it came from (OUT-7). */
function resultSlice(bytes: Buffer, sources: ResultSource[], request: { offset: number; length: number }): HostEvent {
  return { ...sliceOf(bytes, request), sources };
}

async function toolOutput(
  request: Extract<HostRequest, { type: 'toolOutput' }>,
  sdk: ClaudeSdk,
  emit: Emit,
): Promise<void> {
  const key = `${request.cwd}\u0000${request.nativeSessionId}\u0000${request.itemId}`;
  const recent = recentResults.get(key);
  if (recent && sourcesHold(recent.sources)) {
    recentResults.delete(key);
    recentResults.set(key, recent);
    emit(resultSlice(recent.bytes, recent.sources, request));
    return;
  }
  recentResults.delete(key);
  // Stamped before the read, so a transcript replaced during it does not vouch for the copy.
  const transcripts = transcriptSources(claudeProjectsDir(), request.nativeSessionId);
  // Bash results of the conversation only: a subagent's Bash is a tool-call row (TL-1).
  const messages = await sdk.getSessionMessages(request.nativeSessionId, { dir: request.cwd });
  for (const raw of messages) {
    const parsed = SdkMessageSchema.safeParse(raw);
    if (!parsed.success || parsed.data.type !== 'user') continue;
    for (const block of blocksOf(parsed.data)) {
      const result = ToolResultSchema.safeParse(block);
      if (!result.success || result.data.tool_use_id !== request.itemId) continue;
      const text = toolResultText(result.data.content);
      const file = persistedResultFile(text);
      const persisted = file === null ? null : sourceOf(file, false);
      const whole = resolvePersistedResult(text);
      if (whole === null) {
        emit({ type: 'missing' });
        return;
      }
      const bytes = Buffer.from(whole, 'utf8');
      // A result whose transcript is not found is answered, never kept (nothing would tell it changed).
      if (transcripts.length === 0 || (file !== null && persisted === null)) {
        emit(sliceOf(bytes, request));
        return;
      }
      const sources = persisted ? [...transcripts, persisted] : transcripts;
      recentResults.set(key, { bytes, sources });
      for (const oldest of recentResults.keys()) if (recentResults.size > RECENT_RESULTS) recentResults.delete(oldest);
      emit(resultSlice(bytes, sources, request));
      return;
    }
  }
  emit({ type: 'missing' });
}

async function answer(request: HostRequest, pending: Pending, emit: Emit): Promise<void> {
  const sdk = await loadSdk(request.sdkModule);
  if (request.type === 'run') await run(request, sdk, pending, emit);
  else if (request.type === 'historyPage') emit(await readHistoryPage(sdk, request));
  else if (request.type === 'itemText') emit(await readItemText(sdk, request));
  else if (request.type === 'describe') await describe(request, sdk, hostEnv(), emit);
  else if (request.type === 'commands') await slashCommands(request, sdk, hostEnv(), emit);
  else if (request.type === 'savedSessions') await savedSessions(request, sdk, emit);
  else if (request.type === 'sessionTitle') await sessionTitle(request, sdk, emit);
  else await toolOutput(request, sdk, emit);
}

/**
 * Serves request lines until stdin ends (SES-8). Each request runs on its own; its events carry
 * its id, and `end` follows the last. A failure is a `done` event of that request, not an exit.
 */
function main(): void {
  const pending = new Map<string, Pending>();
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on('line', (line) => {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      return;
    }
    const parsed = HostInboundSchema.safeParse(json);
    if (!parsed.success) return;
    const inbound = parsed.data;
    if (inbound.kind === 'control') pending.get(inbound.id)?.control.deliver(inbound.control);
    else if (inbound.kind === 'cancel') {
      pending.get(inbound.id)?.abort.abort();
      pending.get(inbound.id)?.control.end();
    } else {
      const { id, request } = inbound;
      const entry = pendingRequest();
      pending.set(id, entry);
      const emit: Emit = (event) => write({ kind: 'event', id, event });
      answer(request, entry, emit)
        .catch((error: unknown) =>
          emit({ type: 'done', ok: false, error: error instanceof Error ? error.message : String(error) }),
        )
        .finally(() => {
          pending.delete(id);
          write({ kind: 'end', id });
        });
    }
  });
  // The runtime is gone or stops the host: every request ends, runs stop their Claude Code.
  const stopAll = () => {
    for (const entry of pending.values()) {
      entry.abort.abort();
      entry.control.end();
    }
    const exitWhenIdle = () => (pending.size === 0 ? exitAfterOutput(0) : setTimeout(exitWhenIdle, 20));
    exitWhenIdle();
  };
  lines.once('close', stopAll);
  process.once('SIGTERM', stopAll);
}

main();
