import type { Project } from '../../../lib/protocol/rows';
import { notFound, RuntimeError } from '../errors';
import type { SecretFiles } from '../files/secretFiles';
import { gitFailed, notARepository, runFailureAnswer } from './gitErrors';
import { runGit, type GitRun } from './runGit';

export interface GitLimits {
  /** Time limit of a command that stays on this computer. */
  localTimeoutMs: number;
  /** Time limit of a pull or push, which talks to a remote. */
  networkTimeoutMs: number;
  /** stdout kept of one command (a diff past it is cut and says so). */
  maxOutputBytes: number;
}

export const DEFAULT_GIT_LIMITS: GitLimits = {
  localTimeoutMs: 30_000,
  networkTimeoutMs: 120_000,
  maxOutputBytes: 4 * 1024 * 1024,
};

export interface RunOptions {
  input?: string;
  network?: boolean;
  /** Exit codes that are answers, not failures (`git diff --no-index` says 1 for "they differ"). */
  okExitCodes?: readonly number[];
  maxOutputBytes?: number;
}

/** One project folder's repository as a git call sees it. */
export interface GitProject {
  /** The project folder: git runs there, and paths are relative to it. */
  root: string;
  /** The project folder's place under the repository's top folder (`""` at the top, else `sub/`). */
  prefix: string;
  secrets: SecretFiles;
  run(args: readonly string[], options?: RunOptions): Promise<GitRun>;
}

/**
 * The projects' repositories (GIT-1): a call names a project folder `projects.list` reports,
 * and runs git there, one command at a time per folder (two taps never race for git's index
 * lock). Nothing runs but what a call asks for.
 */
export class GitRepositories {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly projects: readonly Project[],
    readonly secrets: SecretFiles,
    private readonly limits: GitLimits = DEFAULT_GIT_LIMITS,
  ) {}

  /** Runs `work` on the project's repository once the folder's earlier calls are done. */
  async with<T>(projectDirectory: string, work: (repo: GitProject) => Promise<T>): Promise<T> {
    const project = this.projects.find((p) => p.directory === projectDirectory);
    if (!project) throw notFound('This folder is not a project of this runtime.', { projectDirectory });
    const root = project.directory;
    const earlier = this.queues.get(root) ?? Promise.resolve();
    const turn = earlier.then(async () => {
      const run = (args: readonly string[], options?: RunOptions) => this.run(root, args, options);
      // NOTE: other refusals here (a repository owned by another user, say) keep git's words.
      const prefix = await run(['rev-parse', '--show-prefix']).catch((error: unknown) => {
        throw error instanceof RuntimeError &&
          error.code === 'git_failed' &&
          /not a git repository/i.test(error.message)
          ? notARepository(projectDirectory)
          : error;
      });
      return work({ root, prefix: prefix.stdout.trim(), secrets: this.secrets, run });
    });
    const settled = turn.catch(() => undefined);
    this.queues.set(root, settled);
    void settled.then(() => {
      if (this.queues.get(root) === settled) this.queues.delete(root);
    });
    return turn;
  }

  private async run(cwd: string, args: readonly string[], options: RunOptions = {}): Promise<GitRun> {
    const command = args[0] ?? '';
    let result: GitRun;
    try {
      result = await runGit(args, {
        cwd,
        input: options.input,
        timeoutMs: options.network ? this.limits.networkTimeoutMs : this.limits.localTimeoutMs,
        maxOutputBytes: options.maxOutputBytes ?? this.limits.maxOutputBytes,
      });
    } catch (error) {
      throw runFailureAnswer(error, command);
    }
    if (result.exitCode !== 0 && !(options.okExitCodes ?? []).includes(result.exitCode))
      throw gitFailed(command, result);
    return result;
  }
}
