import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../server/runtime/paths';

/**
 * The import boundaries of eslint.config.js, run on sources that never touch the disk: each
 * forbidden import must be refused and each allowed one accepted, so a loosened pattern fails here.
 */
const eslint = new ESLint({ cwd: REPO_ROOT });

async function refusal(file: string, from: string): Promise<string | null> {
  const [result] = await eslint.lintText(`import { value } from '${from}';\nexport { value };\n`, { filePath: `${REPO_ROOT}/${file}` });
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
];

describe('import boundaries between realms and layers', () => {
  it.each(refused)('%s may not import %s', async (file, from) => {
    expect(await refusal(file, from)).toContain('restricted from being used by a pattern');
  });

  it.each(allowed)('%s may import %s', async (file, from) => {
    expect(await refusal(file, from)).toBeNull();
  });
});
