import type { MessageRow } from '../../../lib/protocol/rows';

export type AgentFailure = NonNullable<MessageRow['failure']>;

/**
 * A turn that could not run or ended in failure, in words the user can act on (ACC-3): the
 * message row shows `message` and offers `action` (sign in, install). `code` is stable for clients.
 */
export class AgentRunError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly action: AgentFailure['action'] = null,
  ) {
    super(message);
    this.name = 'AgentRunError';
  }

  get failure(): AgentFailure {
    return { code: this.code, message: this.message, action: this.action };
  }
}
