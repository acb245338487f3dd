import { AgentRunError } from '../agentRunError';
import { hostGoneMessage, type HostExit } from './hostProcess';
import type { HostEvent } from './hostProtocol';

type Done = Extract<HostEvent, { type: 'done' }>;

/**
 * Why a Claude turn failed, in words the user can act on (ACC-3): the host's exit when it died
 * under the turn (SES-8: "was killed by SIGKILL", with the end of its stderr), not signed in (with
 * how to sign in), or Claude's own error. Never a bare "failed".
 */
export function claudeRunFailure(
  done: Done | null,
  exit: HostExit | null,
  account: { label: string; signInCommand: string },
): AgentRunError {
  if (exit) return new AgentRunError('claude_exited', hostGoneMessage(exit));
  if (done?.errorCode === 'signed_out') {
    return new AgentRunError(
      'claude_signed_out',
      `Claude is not signed in for “${account.label}”. Enter an API key for it in the app, or run \`${account.signInCommand}\` once on the desktop.`,
      'claudeSignIn',
    );
  }
  if (done?.error)
    return new AgentRunError(done.errorCode ? `claude_${done.errorCode}` : 'claude_turn_failed', done.error);
  return new AgentRunError('claude_turn_failed', 'The Claude agent host ended the turn without saying how it went.');
}
