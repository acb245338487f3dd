/**
 * Host requests that ask Claude Code about itself rather than run a turn (ACC-2, ACC-5, ACC-8):
 * the account's sign-in and models, and a folder's slash commands (UX-10), through a query that
 * never sends a message, and the saved
 * conversations of a folder through listSessions. Runs inside the agent host.
 */
import { z } from 'zod';
import type { HostEvent, HostRequest } from './hostProtocol';

export interface DescribingQuery extends AsyncIterable<unknown> {
  accountInfo(): Promise<unknown>;
  supportedModels(): Promise<unknown[]>;
  supportedCommands(): Promise<unknown[]>;
  interrupt(): Promise<unknown>;
}

export interface QuerySdk {
  query(params: {
    prompt: AsyncIterable<unknown>;
    options: Record<string, unknown>;
  }): AsyncIterable<unknown> & Partial<DescribingQuery>;
  listSessions?(options: { dir?: string; limit?: number }): Promise<unknown[]>;
  getSessionInfo?(sessionId: string, options: { dir?: string }): Promise<unknown>;
}

const AccountSchema = z.object({
  email: z.string().optional(),
  organization: z.string().optional(),
  subscriptionType: z.string().optional(),
  tokenSource: z.string().optional(),
  apiKeySource: z.string().optional(),
  apiProvider: z.string().optional(),
});
const ModelSchema = z.object({
  value: z.string(),
  displayName: z.string(),
  description: z.string().default(''),
  supportedEffortLevels: z.array(z.string()).optional(),
});
const SessionInfoSchema = z.object({
  sessionId: z.string(),
  summary: z.string().default(''),
  lastModified: z.number(),
  gitBranch: z.string().optional(),
  firstPrompt: z.string().optional(),
  fileSize: z.number().int().nonnegative().optional(),
});

/** What getSessionInfo tells of a conversation: `summary` is its custom title, else Claude's summary, else the first prompt. */
const SessionTitleInfoSchema = z.object({
  summary: z.string().default(''),
  customTitle: z.string().optional(),
  firstPrompt: z.string().optional(),
});

/**
 * UX-8: Claude's own title of a conversation: one set with /rename, else the summary Claude wrote,
 * never the first prompt that getSessionInfo falls back to (the list shows that one itself).
 */
export function claudeOwnTitle(info: z.input<typeof SessionTitleInfoSchema> | undefined): string | null {
  const custom = info?.customTitle?.trim();
  if (custom) return custom;
  const summary = info?.summary?.trim();
  return summary && summary !== info?.firstPrompt?.trim() ? summary : null;
}

export type DescribedAccount = z.infer<typeof AccountSchema>;

/**
 * Runs `ask` on a query whose prompt never yields: Claude Code starts, answers the control
 * requests, sends nothing to the model; then it is ended.
 */
async function askSilentQuery(
  sdk: QuerySdk,
  options: Record<string, unknown>,
  ask: (query: AsyncIterable<unknown> & Partial<DescribingQuery>) => Promise<void>,
): Promise<void> {
  let release: () => void = () => undefined;
  const ended = new Promise<IteratorResult<never>>(
    (resolve) => (release = () => resolve({ done: true, value: undefined })),
  );
  const silent: AsyncIterable<never> = { [Symbol.asyncIterator]: () => ({ next: () => ended }) };
  const query = sdk.query({ prompt: silent, options });
  try {
    await ask(query);
  } finally {
    release();
    // Draining ends Claude Code once the prompt has ended.
    for await (const message of query) void message;
  }
}

const CommandSchema = z.object({
  name: z.string(),
  description: z.string().default(''),
  argumentHint: z.string().default(''),
});
const InitMessageSchema = z.object({
  type: z.literal('system'),
  subtype: z.literal('init'),
  terminal_slash_commands: z.array(z.string()),
});

/**
 * Commands Claude Code marks as bound to its own terminal (`/color`, `/focus`…), which a phone
 * cannot use. Only a turn's init message names them, so the host keeps what its turns were told.
 */
const terminalCommands = new Set<string>();

/** UX-10: notes the terminal-bound commands a turn's init message names. */
export function noteTerminalCommands(message: unknown): void {
  const init = InitMessageSchema.safeParse(message);
  if (init.success) for (const name of init.data.terminal_slash_commands) terminalCommands.add(name);
}

/**
 * UX-10: the commands a turn in this folder could run, read with the settings a turn reads (the
 * user's, the project's and the local ones, so `.claude/commands/*.md` are among them). Names
 * Claude Code keeps for itself (a leading `__`) and those bound to its terminal are left out.
 */
export async function slashCommands(
  request: Extract<HostRequest, { type: 'commands' }>,
  sdk: QuerySdk,
  env: Record<string, string>,
  emit: (event: HostEvent) => void,
): Promise<void> {
  const options = {
    cwd: request.cwd,
    env,
    settingSources: ['user', 'project', 'local'],
    ...(request.executable ? { pathToClaudeCodeExecutable: request.executable } : {}),
  };
  await askSilentQuery(sdk, options, async (query) => {
    if (!query.supportedCommands) throw new Error('The Claude Agent SDK lacks supportedCommands.');
    const commands = z.array(CommandSchema).parse(await query.supportedCommands());
    emit({
      type: 'commands',
      commands: commands.filter((c) => !c.name.startsWith('__') && !terminalCommands.has(c.name)),
    });
  });
}

export async function describe(
  request: Extract<HostRequest, { type: 'describe' }>,
  sdk: QuerySdk,
  env: Record<string, string>,
  emit: (event: HostEvent) => void,
): Promise<void> {
  const options = {
    cwd: request.cwd,
    env,
    settingSources: [],
    ...(request.executable ? { pathToClaudeCodeExecutable: request.executable } : {}),
  };
  await askSilentQuery(sdk, options, async (query) => {
    if (!query.accountInfo || !query.supportedModels)
      throw new Error('The Claude Agent SDK lacks accountInfo or supportedModels.');
    const account = AccountSchema.parse(await query.accountInfo());
    const models = z.array(ModelSchema).parse(await query.supportedModels());
    emit({
      type: 'described',
      account: {
        email: account.email ?? null,
        organization: account.organization ?? null,
        subscriptionType: account.subscriptionType ?? null,
        tokenSource: account.tokenSource ?? null,
        apiKeySource: account.apiKeySource ?? null,
        apiProvider: account.apiProvider ?? null,
      },
      models: models.map((m) => ({
        value: m.value,
        displayName: m.displayName,
        description: m.description,
        efforts: m.supportedEffortLevels ?? [],
      })),
    });
  });
}

export async function savedSessions(
  request: Extract<HostRequest, { type: 'savedSessions' }>,
  sdk: QuerySdk,
  emit: (event: HostEvent) => void,
): Promise<void> {
  if (!sdk.listSessions) throw new Error('The Claude Agent SDK lacks listSessions.');
  const found = z.array(SessionInfoSchema).parse(await sdk.listSessions({ dir: request.cwd, limit: request.limit }));
  emit({
    type: 'sessions',
    sessions: found.map((s) => ({
      sessionId: s.sessionId,
      summary: s.summary,
      lastModified: s.lastModified,
      gitBranch: s.gitBranch ?? null,
      firstPrompt: s.firstPrompt ?? null,
      fileSize: s.fileSize ?? null,
    })),
  });
}

export async function sessionTitle(
  request: Extract<HostRequest, { type: 'sessionTitle' }>,
  sdk: QuerySdk,
  emit: (event: HostEvent) => void,
): Promise<void> {
  if (!sdk.getSessionInfo) throw new Error('The Claude Agent SDK lacks getSessionInfo.');
  const info = await sdk.getSessionInfo(request.nativeSessionId, { dir: request.cwd });
  emit({
    type: 'sessionTitle',
    title: claudeOwnTitle(info === undefined ? undefined : SessionTitleInfoSchema.parse(info)),
  });
}
