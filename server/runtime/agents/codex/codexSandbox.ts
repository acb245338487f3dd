import { DECLINED_COMMAND_ERROR, type CommandResult } from '../agent';
import type { CommandExecutionItem } from './codexProtocol';

/**
 * Why Codex's own sandbox could not start a command (SBX-2), read from what Codex reports for it:
 * the sandbox fails before the command runs, so its message is the first thing in the output.
 */
export type SandboxFailureCause = 'noBubblewrap' | 'noNamespaces' | 'refusedFolder';

const CAUSES: { cause: SandboxFailureCause; pattern: RegExp }[] = [
  // Codex 0.171: neither a `bwrap` on PATH (outside folders a command may write) nor its bundled one.
  {
    cause: 'noBubblewrap',
    pattern: /bubblewrap is unavailable|no system bwrap was found|Failed to execvp bwrap|execvp bwrap/i,
  },
  // bubblewrap runs Codex's helper `codex-linux-sandbox` by name from the helper links Codex makes
  // in its home; Codex refuses to make them in a home under its temporary folder.
  {
    cause: 'refusedFolder',
    pattern:
      /execvp codex-linux-sandbox|Refusing to create helper binaries under temporary dir|codex-linux-sandbox was required but not provided/i,
  },
  // The kernel or the container refuses the user namespace bubblewrap needs.
  {
    cause: 'noNamespaces',
    pattern:
      /bwrap: (?:No permissions to creat\w* new namespace|Creating new namespace failed|setting up uid map|unshare failed|Failed to make \/ slave|loopback: Failed)|user namespaces? (?:are|is) (?:not available|disabled)/i,
  },
];

const WHAT: Record<SandboxFailureCause, string> = {
  noBubblewrap: 'this machine has no bubblewrap (bwrap), which Codex needs for its sandbox',
  refusedFolder: "Codex refused to set up its sandbox helper in this Codex profile's folder",
  noNamespaces: 'this machine does not allow the user namespaces Codex needs for its sandbox',
};

const CHOICES: Record<SandboxFailureCause, string[]> = {
  noBubblewrap: [
    'install bubblewrap (the bubblewrap package)',
    'run this session with full access (Codex then runs commands without a sandbox)',
  ],
  refusedFolder: [
    'move the data folder (--data-dir) out of the temporary folder',
    'install bubblewrap system-wide',
    'run this session with full access (Codex then runs commands without a sandbox)',
  ],
  noNamespaces: [
    'allow unprivileged user namespaces on this machine (or in its container)',
    'install bubblewrap system-wide',
    'run this session with full access (Codex then runs commands without a sandbox)',
  ],
};

/** The sandbox failure a failed command shows, or null when the command itself ran. */
export function sandboxFailureOf(
  item: Pick<CommandExecutionItem, 'status' | 'aggregatedOutput'>,
): SandboxFailureCause | null {
  if (item.status !== 'failed' || !item.aggregatedOutput) return null;
  const head = item.aggregatedOutput.slice(0, 1024);
  return CAUSES.find(({ pattern }) => pattern.test(head))?.cause ?? null;
}

/** The plain-words reason with the user's choices, for the command's row and the session (SBX-2). */
export function sandboxFailureText(cause: SandboxFailureCause): string {
  return `Codex's sandbox could not start, so the command did not run: ${WHAT[cause]}. You can ${CHOICES[cause].join('; or ')}.`;
}

/** Codex's own words for a command that never started ("Failed to create unified exec process: …"). */
const START_FAILURE = /^Failed to create (?:unified exec )?process: ?(.*)/;

/**
 * Codex's own status of a command mapped onto a command row's status: a command Codex could not
 * start, or whose sandbox could not start, is `failed` with the reason, never an exit code.
 */
export function commandResult(item: CommandExecutionItem, cancelled: boolean): Omit<CommandResult, 'aggregate'> {
  if (cancelled) return { status: 'cancelled', exitCode: item.exitCode };
  if (item.status === 'declined') return { status: 'cancelled', exitCode: null, error: DECLINED_COMMAND_ERROR };
  const sandbox = sandboxFailureOf(item);
  if (sandbox) return { status: 'failed', exitCode: null, error: sandboxFailureText(sandbox) };
  const notStarted = item.status === 'failed' ? START_FAILURE.exec(item.aggregatedOutput?.trim() ?? '') : null;
  if (notStarted)
    return {
      status: 'failed',
      exitCode: null,
      error: `Codex could not start the command: ${notStarted[1] || 'no reason given'}.`,
    };
  if (item.status === 'failed' && item.exitCode === null)
    return { status: 'failed', exitCode: null, error: 'Codex could not run the command.' };
  return { status: 'exited', exitCode: item.exitCode };
}
