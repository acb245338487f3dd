import fs from 'node:fs';
import type { z } from 'zod';
import type { CodexLogin, CodexProfile as CodexProfileInfo, CodexThread } from '../../../../lib/protocol/accounts';
import type { UsageReading } from '../../../../lib/protocol/agents';
import { AgentRunError } from '../agentRunError';
import type { AgentModel } from '../agent';
import { conflict, invalidParams, notFound, RuntimeError } from '../../errors';
import {
  AccountReadResultSchema,
  CODEX,
  LoginCompletedSchema,
  LoginStartResultSchema,
  ModelListResultSchema,
  RateLimitsReadResultSchema,
  RateLimitsUpdatedSchema,
  ThreadListResultSchema,
  type RateLimitSnapshotSchema,
} from './codexProtocol';
import type { CodexAccountState, CodexProfile, CodexProfiles } from './codexProfiles';
import type { ProfileServer } from './codexServers';
import type { Logger } from '../../log';
import { z as zod } from 'zod';

/** What the runtime is told about profiles and plan limits. */
export interface CodexAccountHooks {
  /** A plan-limit reading of a profile (ACC-7); the account key is the profile id. */
  recordUsage?(reading: UsageReading): void;
  profileChanged?(params: {
    profile: CodexProfileInfo;
    removed: boolean;
    login?: { loginId: string | null; success: boolean; error: string | null };
  }): void;
}

export const CODEX_SIGNED_OUT_MESSAGE = 'Codex is not signed in — Sign in';

/** Codex's reset times are Unix seconds; readings keep milliseconds. */
const toMs = (time: number | null | undefined) =>
  time === null || time === undefined ? null : time < 1e12 ? Math.round(time * 1000) : Math.round(time);

/** The windows of one rate-limit snapshot as readings; `primary`/`secondary` of the `codex` limit keep their names. */
export function usageReadings(
  profileId: string,
  snapshot: z.output<typeof RateLimitSnapshotSchema>,
  sampledAt: number,
): UsageReading[] {
  const prefix = snapshot.limitId && snapshot.limitId !== 'codex' ? `${snapshot.limitId}:` : '';
  const windows = [
    ['primary', snapshot.primary],
    ['secondary', snapshot.secondary],
  ] as const;
  return windows.flatMap(([name, window]) =>
    window
      ? [
          {
            agent: 'codex' as const,
            accountKey: profileId,
            window: prefix + name,
            usedPercent: Math.max(0, window.usedPercent),
            resetsAt: toMs(window.resetsAt),
            sampledAt,
          },
        ]
      : [],
  );
}

const threadTime = (time: number | null | undefined) => toMs(time);

/** Thread sources a person starts (ThreadSourceKind): without them `thread/list` leaves out `codex exec` runs. */
const PERSON_STARTED_SOURCES = ['cli', 'vscode', 'exec', 'appServer'] as const;

/** A file's size, or null when it cannot be seen. */
function fileSize(file: string): number | null {
  try {
    return fs.statSync(file).size;
  } catch {
    return null;
  }
}

/**
 * Codex profiles as the user manages them (ACC-1): add, name, remove, sign in by device code,
 * browser or API key, sign out, with the status and account columns the profile's app-server
 * reports (`account/read`). Plan limits (`account/rateLimits/*`) become usage readings (ACC-7).
 */
export class CodexAccounts {
  constructor(
    private readonly profiles: CodexProfiles,
    private readonly serverOf: (profile: CodexProfile) => Promise<ProfileServer>,
    private readonly stopServer: (profileId: string) => Promise<void>,
    private readonly hooks: CodexAccountHooks,
    private readonly log: Logger,
  ) {}

  list(): CodexProfileInfo[] {
    return this.profiles.list();
  }

  private info(profileId: string): CodexProfileInfo {
    const info = this.profiles.info(profileId);
    if (!info) throw notFound('No such Codex profile.', { profileId });
    return info;
  }

  /** Throws unless `profileId` (null: the default profile) exists. */
  requireProfile(profileId: string | null): CodexProfile {
    const profile = this.profiles.profile(profileId);
    if (!profile) throw notFound('No such Codex profile.', { profileId });
    return profile;
  }

  private changed(
    profile: CodexProfileInfo,
    login?: { loginId: string | null; success: boolean; error: string | null },
  ): void {
    this.hooks.profileChanged?.({ profile, removed: false, ...(login ? { login } : {}) });
  }

  add(name: string): CodexProfileInfo {
    const profile = this.profiles.add(name);
    this.changed(profile);
    return profile;
  }

  rename(profileId: string, name: string): CodexProfileInfo {
    this.info(profileId);
    this.profiles.rename(profileId, name);
    const profile = this.info(profileId);
    this.changed(profile);
    return profile;
  }

  /** Removes the profile and its folder, unless a session still links a thread inside it (ACC-1). */
  async remove(profileId: string): Promise<void> {
    const profile = this.info(profileId);
    const links = this.profiles.linkCount(profileId);
    if (links > 0) {
      throw conflict(
        `${links === 1 ? 'A session still continues' : `${links} sessions still continue`} a conversation in this profile; delete ${links === 1 ? 'it' : 'them'} first.`,
        { profileId, sessions: links },
      );
    }
    await this.stopServer(profileId);
    this.profiles.remove(profileId);
    this.hooks.profileChanged?.({ profile, removed: true });
  }

  private async server(profileId: string): Promise<ProfileServer> {
    return this.serverOf(this.requireProfile(profileId));
  }

  /** Asks the profile's app-server for its account and stores what it says. */
  async refresh(profileId: string): Promise<CodexProfileInfo> {
    this.info(profileId);
    let state: CodexAccountState;
    try {
      state = await this.readAccount(await this.server(profileId));
    } catch (error) {
      if (!(error instanceof RuntimeError)) throw error;
      state = { status: 'unavailable', authMode: null, email: null, planType: null, statusReason: error.message };
    }
    const profile = this.profiles.setState(profileId, state)!;
    this.changed(profile);
    return profile;
  }

  private async readAccount(server: ProfileServer): Promise<CodexAccountState & { requiresOpenaiAuth: boolean }> {
    await server.ready;
    const { account, requiresOpenaiAuth } = await server.client.call(
      CODEX.accountRead,
      { refreshToken: false },
      AccountReadResultSchema,
    );
    if (!account)
      return {
        status: 'signed_out',
        authMode: null,
        email: null,
        planType: null,
        statusReason: null,
        requiresOpenaiAuth,
      };
    return {
      status: 'authenticated',
      authMode: account.type,
      email: account.email ?? null,
      planType: account.planType ?? null,
      statusReason: null,
      requiresOpenaiAuth,
    };
  }

  /**
   * Before a turn (ACC-3): a profile whose provider needs a sign-in and has none fails at once
   * with the sign-in message, instead of a turn that waits on refused requests.
   */
  async ensureSignedIn(server: ProfileServer): Promise<void> {
    const { requiresOpenaiAuth, ...state } = await this.readAccount(server);
    const before = this.profiles.info(server.profileId);
    const profile = this.profiles.setState(server.profileId, state);
    if (profile && before?.status !== profile.status) this.changed(profile);
    if (state.status === 'signed_out' && requiresOpenaiAuth)
      throw new AgentRunError('codex_signed_out', CODEX_SIGNED_OUT_MESSAGE, 'codexSignIn');
  }

  async loginStart(
    profileId: string,
    method: CodexLogin['method'],
    apiKey: string | undefined,
  ): Promise<{ login: CodexLogin; profile: CodexProfileInfo }> {
    if (method === 'apiKey' && !apiKey) throw invalidParams('An API key sign-in needs `apiKey`.');
    if (method !== 'apiKey' && apiKey) throw invalidParams('Only an API key sign-in takes `apiKey`.');
    const server = await this.server(profileId);
    await server.ready;
    const params =
      method === 'apiKey'
        ? { type: 'apiKey', apiKey }
        : method === 'deviceCode'
          ? { type: 'chatgptDeviceCode' }
          : { type: 'chatgpt' };
    const started = await server.client.call(CODEX.loginStart, params, LoginStartResultSchema);
    const login: CodexLogin = {
      loginId: started.loginId ?? null,
      method,
      verificationUrl: started.verificationUrl ?? null,
      userCode: started.userCode ?? null,
      authUrl: started.authUrl ?? null,
    };
    // An API key is stored at once; the others finish on account/login/completed.
    const profile = method === 'apiKey' ? await this.refresh(profileId) : this.info(profileId);
    return { login, profile };
  }

  async logout(profileId: string): Promise<CodexProfileInfo> {
    const server = await this.server(profileId);
    await server.ready;
    await server.client.call(CODEX.logout, undefined, zod.unknown());
    return this.refresh(profileId);
  }

  /**
   * The profile's saved threads, newest first (ACC-8), of every source a person starts: the
   * terminal (`codex`, `codex exec`), an editor, and app-servers such as this runtime's, never a
   * subagent's. The size is that of the rollout file Codex names (stat only, never read).
   */
  async threads(profileId: string, cwd: string | undefined, limit = 50): Promise<CodexThread[]> {
    const server = await this.server(profileId);
    await server.ready;
    const page = await server.client.call(
      CODEX.threadList,
      { limit, sourceKinds: [...PERSON_STARTED_SOURCES], sortKey: 'updated_at', ...(cwd ? { cwd } : {}) },
      ThreadListResultSchema,
    );
    return page.data.map((t) => ({
      id: t.id,
      preview: t.preview,
      cwd: t.cwd ?? null,
      createdAt: threadTime(t.createdAt),
      updatedAt: threadTime(t.updatedAt),
      name: t.name ?? null,
      gitBranch: t.gitInfo?.branch ?? null,
      sizeBytes: t.path ? fileSize(t.path) : null,
    }));
  }

  /** model/list of the profile (ACC-5), every page, without hidden models. */
  async models(profileId: string | null): Promise<AgentModel[]> {
    const server = await this.serverOf(this.requireProfile(profileId));
    await server.ready;
    const models: AgentModel[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 20; page++) {
      const result: z.output<typeof ModelListResultSchema> = await server.client.call(
        CODEX.modelList,
        cursor ? { cursor } : {},
        ModelListResultSchema,
      );
      for (const m of result.data) {
        if (m.hidden) continue;
        models.push({
          id: m.model,
          label: m.displayName,
          description: m.description || null,
          efforts: m.supportedReasoningEfforts.map((e) => e.reasoningEffort),
          isDefault: m.isDefault,
        });
      }
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return models;
  }

  /** Reads the profile's plan limits into usage readings; a profile without them (API key) has none. */
  async readRateLimits(server: ProfileServer): Promise<void> {
    try {
      const { rateLimits } = await server.client.call(CODEX.rateLimitsRead, undefined, RateLimitsReadResultSchema);
      for (const reading of usageReadings(server.profileId, rateLimits, Date.now())) this.hooks.recordUsage?.(reading);
    } catch (error) {
      // Only ChatGPT sign-ins have plan limits; anything else answers with an error.
      this.log.info('codex plan limits not read', {
        profileId: server.profileId,
        reason: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /** account/* notifications of a profile's app-server. */
  onNotification(server: ProfileServer, method: string, params: unknown): void {
    if (method === CODEX.rateLimitsUpdated) {
      const parsed = RateLimitsUpdatedSchema.safeParse(params);
      if (parsed.success)
        for (const reading of usageReadings(server.profileId, parsed.data.rateLimits, Date.now()))
          this.hooks.recordUsage?.(reading);
      return;
    }
    if (method === CODEX.loginCompleted) {
      const parsed = LoginCompletedSchema.safeParse(params);
      if (!parsed.success) return;
      const { loginId, success, error } = parsed.data;
      void this.refresh(server.profileId)
        .then((profile) => {
          this.changed(profile, { loginId, success, error });
          if (success) return this.readRateLimits(server);
        })
        .catch(() => undefined);
      return;
    }
    if (method === CODEX.accountUpdated) void this.refresh(server.profileId).catch(() => undefined);
  }
}
