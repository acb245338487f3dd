'use client';
import type { RpcClient } from '../../lib/client/rpcClient';

/** Claude accounts on the Accounts screen (ACC-2); the Claude adapter's section takes this place. */
export function ClaudeAccountsSection(_props: { client: RpcClient | null }) {
  return null;
}
