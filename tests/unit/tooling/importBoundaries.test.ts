import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../server/runtime/paths';

/**
 * The import boundaries of eslint.config.js, run on sources that never touch the disk: each
 * forbidden import must be refused and each allowed one accepted, so a loosened pattern fails here.
 */
const eslint = new ESLint({ cwd: REPO_ROOT });

async function refusal(file: string, from: string): Promise<string | null> {
  const [result] = await eslint.lintText(`import { value } from '${from}';\nexport { value };\n`, {
    filePath: `${REPO_ROOT}/${file}`,
  });
  const message = result?.messages.find((m) => m.ruleId === 'no-restricted-imports');
  return message ? message.message : null;
}

const refused: [file: string, from: string][] = [
  ['lib/protocol/x.ts', '../client/rpcClient'],
  ['lib/protocol/x.ts', '../markdown/convertPage'],
  ['server/rpc/x.ts', '../../lib/client/rpcClient'],
  ['server/rpc/x.ts', '../../components/AppShell'],
  ['server/runtime/x.ts', '../../workers/markdown.worker'],
  ['server/x.ts', '../app/page'],
  ['app/x.tsx', '../server/main'],
  ['components/files/x.tsx', '../../server/runtime/runtime'],
  ['lib/client/x.ts', '../../components/AppShell'],
  ['lib/client/preview/x.ts', '../../../server/runtime/preview/previews'],
  ['workers/x.ts', '../lib/client/rpcClient'],
  ['lib/markdown/x.ts', '../client/rpcClient'],
  ['lib/highlight/x.ts', '../../server/runtime/log'],
  ['public/sw.ts', '../lib/client/appDb'],
  ['lib/serviceWorker/x.ts', '../client/appDb'],
  ['lib/terminal/x.ts', '../client/rpcClient'],
  ['lib/terminal/x.ts', '../../server/runtime/log'],
  ['lib/links/x.ts', '../terminal/ansi'],
  // Two programs: the relay node imports nothing of the runtime, the runtime nothing of the relay node.
  ['relay/x.ts', '../server/runtime/log'],
  ['relay/x.ts', '../server/http/httpServer'],
  ['relay/x.ts', '../lib/client/rpcClient'],
  ['server/x.ts', '../relay/relayNode'],
  ['server/relayLink/x.ts', '../../relay/natsWire'],
  ['server/runtime/x.ts', '../../relay/relayNode'],
  ['app/x.tsx', '../relay/relayNode'],
  ['components/x.tsx', '../relay/relayNode'],
  // The runtime's core is reached through the RPC methods, the HTTP server and the relay link, never the other way.
  ['server/runtime/x.ts', '../rpc/methodHandlers'],
  ['server/runtime/sessions/x.ts', '../../http/httpServer'],
  ['server/runtime/x.ts', '../relayLink/relayLink'],
  // What both programs share stays below both.
  ['lib/relay/x.ts', '../../server/runtime/log'],
  ['lib/relay/x.ts', '../../relay/relayNode'],
  ['lib/relay/x.ts', '../client/rpcClient'],
  ['lib/nodeHttp/x.ts', '../relay/relayWire'],
  ['lib/nodeHttp/x.ts', '../../server/http/httpServer'],
];

const allowed: [file: string, from: string][] = [
  ['lib/protocol/x.ts', './rows'],
  ['server/rpc/x.ts', '../../lib/protocol/rows'],
  ['server/runtime/agents/x.ts', '../../../scripts/install-agents.mjs'],
  ['server/http/x.ts', './appStatic'],
  ['components/files/x.tsx', '../../lib/client/appRoute'],
  ['lib/client/preview/x.ts', '../../protocol/previewBridge'],
  ['workers/x.ts', '../lib/markdown/convertPage'],
  ['lib/markdown/x.ts', '../protocol/rows'],
  ['public/sw.ts', '../lib/serviceWorker/previewOriginWorker'],
  ['lib/serviceWorker/x.ts', '../client/preview/portInbox'],
  ['tests/unit/x.ts', '../../server/main'],
  ['server/runtime/output/x.ts', '../../../lib/terminal/renderedSearch'],
  ['lib/terminal/x.ts', '../links/safeLinks'],
  ['components/x.tsx', '../lib/terminal/terminalLines'],
  ['relay/x.ts', './relayNode'],
  ['relay/x.ts', '../lib/relay/relayWire'],
  ['relay/x.ts', '../lib/nodeHttp/httpLimits'],
  ['relay/x.ts', '../lib/protocol/version'],
  ['relay/x.ts', '../lib/shared/parseJsonWith'],
  ['server/x.ts', './relayLink/startRelayLink'],
  ['server/relayLink/x.ts', '../../lib/relay/relayWire'],
  ['server/relayLink/x.ts', '../rpc/methodHandlers'],
  ['server/http/x.ts', '../../lib/nodeHttp/connectionGovernor'],
  ['server/rpc/x.ts', '../runtime/runtime'],
  ['server/runtime/x.ts', '../auth/tokens'],
  ['server/runtime/sessions/x.ts', '../../../lib/relay/relayWire'],
  ['lib/relay/x.ts', '../protocol/version'],
  ['components/x.tsx', '../lib/relay/relayWire'],
  ['tests/unit/x.ts', '../../relay/relayNode'],
];

describe('import boundaries between realms and layers', () => {
  it.each(refused)('%s may not import %s', async (file, from) => {
    expect(await refusal(file, from)).toContain('restricted from being used by a pattern');
  });

  it.each(allowed)('%s may import %s', async (file, from) => {
    expect(await refusal(file, from)).toBeNull();
  });
});
