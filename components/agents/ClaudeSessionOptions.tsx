'use client';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { ClaudeSettings } from '../../lib/protocol/agents';

export interface ClaudeSessionOptionsProps {
  value: ClaudeSettings;
  onChange(value: ClaudeSettings): void;
  client: RpcClient;
  projectId: string;
  onContinue?(claudeSessionId: string): void;
}

/** A new Claude session's options (ACC-5); the Claude adapter's form takes this place. */
export function ClaudeSessionOptions(_props: ClaudeSessionOptionsProps) {
  return null;
}
