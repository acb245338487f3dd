import { RpcError } from '../rpcClient';

/**
 * DEV-2: a call that switches on settings letting an agent act without asking is refused until
 * the user confirms it on this device; `call(true)` sends it again confirmed. Declined: null.
 */
export async function withGuardRailConfirmation<T>(
  call: (confirmed: boolean) => Promise<T>,
  confirm: (message: string) => boolean = (m) => window.confirm(m),
): Promise<T | null> {
  try {
    return await call(false);
  } catch (error) {
    if (!(error instanceof RpcError) || error.code !== 'conflict' || error.data.reason !== 'confirmation_required')
      throw error;
    if (!confirm(`${error.message}\n\nSwitch it on?`)) return null;
    return call(true);
  }
}
