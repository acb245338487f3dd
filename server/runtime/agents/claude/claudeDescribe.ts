import os from 'node:os';
import type { ClaudeAccountStatus } from '../../../../lib/protocol/claude';
import { unavailable } from '../../errors';
import type { ProcessGroupLedger } from '../../process/processGroupLedger';
import type { ClaudeProgram } from '../agentLocator';
import { isSignedOut } from './claudeHostSignals';
import { runAgentHost } from './hostProcess';
import type { HostEvent } from './hostProtocol';

type Described = Extract<HostEvent, { type: 'described' }>;

/** accountInfo and supportedModels of one account, through a host that sends no message (ACC-2, ACC-5). */
export async function describeAccount(program: ClaudeProgram, env: NodeJS.ProcessEnv, processes?: Pick<ProcessGroupLedger, 'trackerFor'>): Promise<Described> {
  let described: Described | null = null;
  let failure: string | undefined;
  const exit = await runAgentHost(
    // No project folder is involved: the host runs in the user's home.
    { type: 'describe', sdkModule: program.sdkModule, executable: program.executable, cwd: os.homedir() },
    (event) => {
      if (event.type === 'described') described = event;
      else if (event.type === 'done' && !event.ok) failure = event.error;
    },
    undefined,
    processes?.trackerFor({ purpose: 'claude host' }),
    env,
  );
  if (!described) throw unavailable(`Claude Code could not describe the account: ${failure ?? `the agent host stopped (${exit.code}).`}`);
  return described;
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
