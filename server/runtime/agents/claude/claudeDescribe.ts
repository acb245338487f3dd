import os from 'node:os';
import type { ClaudeAccountStatus } from '../../../../lib/protocol/claude';
import { unavailable } from '../../errors';
import type { ClaudeProgram } from '../agentLocator';
import { isSignedOut } from './claudeHostSignals';
import { askHostOnce, type ClaudeHostProcess } from './hostProcess';
import type { HostEvent } from './hostProtocol';

type Described = Extract<HostEvent, { type: 'described' }>;

/** accountInfo and supportedModels of one account, asked of its host with no message sent (ACC-2, ACC-5, SES-8). */
export async function describeAccount(
  program: ClaudeProgram,
  host: ClaudeHostProcess,
  timeoutMs: number,
): Promise<Described> {
  // No project folder is involved: the request runs in the user's home.
  const event = await askHostOnce(
    host,
    { type: 'describe', sdkModule: program.sdkModule, executable: program.executable, cwd: os.homedir() },
    timeoutMs,
  );
  if (event?.type !== 'described')
    throw unavailable(
      `Claude Code could not describe the account: ${event?.type === 'done' ? event.error : 'the agent host gave no answer.'}`,
    );
  return event;
}

export function accountStatusOf(described: Described): ClaudeAccountStatus {
  const { account } = described;
  const signedOut = isSignedOut({
    tokenSource: account.tokenSource ?? undefined,
    apiKeySource: account.apiKeySource ?? undefined,
    apiProvider: account.apiProvider ?? undefined,
  });
  const tokenSource = account.tokenSource && account.tokenSource !== 'none' ? account.tokenSource : null;
  return {
    state: signedOut ? 'signedOut' : 'signedIn',
    email: account.email,
    organization: account.organization,
    subscriptionType: account.subscriptionType,
    source: tokenSource ?? account.apiKeySource,
    reason: null,
  };
}
