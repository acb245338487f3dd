import { AgentRunError } from '../agentRunError';
import type { HostExit } from './hostProcess';
import type { HostEvent } from './hostProtocol';

type Done = Extract<HostEvent, { type: 'done' }>;

/** The last lines of the host's stderr, which say why it stopped. */
function stderrTail(stderr: string, lines = 5): string {
  return stderr.trim().split('\n').slice(-lines).join('\n').slice(-1000);
}

/**
 * Why a Claude turn failed, in words the user can act on (ACC-3): not signed in (with how to sign
 * in), Claude's own error, or the host's exit code and the end of its stderr. Never a bare "failed".
 */
export function claudeRunFailure(done: Done | null, exit: HostExit, account: { label: string; signInCommand: string }): AgentRunError {
  if (done?.errorCode === 'signed_out') {
    return new AgentRunError(
      'claude_signed_out',
      `Claude is not signed in for “${account.label}”. Enter an API key for it in the app, or run \`${account.signInCommand}\` once on the desktop.`,
      'claudeSignIn',
    );
  }
  if (done?.error) return new AgentRunError(done.errorCode ? `claude_${done.errorCode}` : 'claude_turn_failed', done.error);
  const tail = stderrTail(exit.stderr);
  return new AgentRunError('claude_exited', `The Claude agent host stopped with exit code ${exit.code ?? 'none (killed)'}${tail ? `: ${tail}` : ', and said nothing on stderr.'}`);
}
