import { z } from 'zod';
import type { AgentProgram } from '../agentLocator';
import { unavailable } from '../../errors';
import type { Logger } from '../../log';
import { childEnvironment } from '../../process/childEnvironment';
import type { ProcessGroupLedger } from '../../process/processGroupLedger';
import { AppServerClient } from './appServerClient';
import { CODEX } from './codexProtocol';
import { configOverrides, profileConfig, type CodexProfile, type CodexProfiles } from './codexProfiles';

const CLIENT_INFO = { name: 'hbcode', title: 'HB Code Web', version: '0.1.0' };

/** One app-server child per profile, started on first use. */
export interface ProfileServer {
  profileId: string;
  client: AppServerClient;
  ready: Promise<void>;
  /** Threads this child has started or resumed. */
  loaded: Set<string>;
}

export interface ProfileServerHandlers {
  notification(server: ProfileServer, method: string, params: unknown): void;
  request(server: ProfileServer, method: string, params: unknown): Promise<unknown>;
  exited(server: ProfileServer, reason: string, exitCode: number | null): void;
}

/**
 * The app-server children, one per Codex profile, each with its home as CODEX_HOME (ACC-1). Every
 * account, model and thread question goes to the profile's own child: the runtime never opens a
 * file inside a home.
 */
export class CodexServers {
  private readonly servers = new Map<string, ProfileServer>();

  constructor(
    private readonly program: AgentProgram | null,
    private readonly profiles: CodexProfiles,
    private readonly handlers: ProfileServerHandlers,
    private readonly log: Logger,
    private readonly env: NodeJS.ProcessEnv,
    private readonly processes?: Pick<ProcessGroupLedger, 'trackerFor'>,
    private readonly stopGraceMs?: number,
  ) {}

  /** The running child of `profile`, started (and initialized) when there is none. */
  serverFor(profile: CodexProfile, unavailableReason: string): ProfileServer {
    const existing = this.servers.get(profile.id);
    if (existing && !existing.client.exitedReason) return existing;
    if (!this.program) throw unavailable(unavailableReason);
    this.profiles.prepareHome(profile);
    const overrides = configOverrides(profileConfig(this.env.HBCODE_CODEX_CONFIG_TOML));
    // TMPDIR: the profile's own temporary folder, never a parent of its home (SBX-1).
    const env = childEnvironment({ CODEX_HOME: profile.home, TMPDIR: profile.tmp }, this.env);
    // The handlers run on the child's output, never before `server` below is assigned.
    const client = new AppServerClient(
      { file: this.program.file, args: [...this.program.args, ...overrides] },
      env,
      {
        notification: (method, params) => this.handlers.notification(server, method, params),
        request: (method, params) => this.handlers.request(server, method, params),
        exited: (reason, exitCode) => this.handlers.exited(server, reason, exitCode),
      },
      this.log,
      this.processes?.trackerFor({ purpose: 'codex app-server' }),
      this.stopGraceMs,
    );
    const server: ProfileServer = { profileId: profile.id, client, ready: Promise.resolve(), loaded: new Set() };
    server.ready = client
      .call(
        CODEX.initialize,
        { clientInfo: CLIENT_INFO, capabilities: { experimentalApi: true, requestAttestation: false } },
        z.unknown(),
      )
      .then(() => client.notify(CODEX.initialized));
    this.servers.set(profile.id, server);
    return server;
  }

  /** Stops one profile's child (profile removal). */
  async stop(profileId: string): Promise<void> {
    const server = this.servers.get(profileId);
    this.servers.delete(profileId);
    await server?.client.close();
  }

  async close(): Promise<void> {
    const servers = [...this.servers.values()];
    this.servers.clear();
    await Promise.all(servers.map((server) => server.client.close()));
  }
}
