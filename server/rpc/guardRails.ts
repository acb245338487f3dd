import type { SessionAgentSettings } from '../../lib/protocol/agents';
import { RuntimeError } from '../runtime/errors';

/** DEV-2: the settings that let an agent act without asking, in words, that `next` switches on and `current` had off. */
export function liftedGuardRails(next: SessionAgentSettings, current: SessionAgentSettings | null): string[] {
  const lifted: string[] = [];
  if (next.claude?.permissionMode === 'bypassPermissions' && current?.claude?.permissionMode !== 'bypassPermissions')
    lifted.push('Claude permission mode bypassPermissions');
  if (next.codex?.sandbox === 'danger-full-access' && current?.codex?.sandbox !== 'danger-full-access')
    lifted.push('Codex sandbox danger-full-access');
  if (next.codex?.approvalPolicy === 'never' && current?.codex?.approvalPolicy !== 'never')
    lifted.push('Codex approval policy never');
  return lifted;
}

/** Refuses lifted guard rails the user did not confirm on this device (`confirmLiftedGuardRails`). */
export function requireGuardRailConfirmation(lifted: string[], confirmed: boolean | undefined): void {
  if (lifted.length === 0 || confirmed) return;
  throw new RuntimeError(
    'conflict',
    `This lets the agent act without asking (${lifted.join(', ')}). Confirm it on this device to switch it on; every device is told.`,
    {
      reason: 'confirmation_required',
      lifted,
    },
  );
}
