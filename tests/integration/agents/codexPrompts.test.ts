import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODEX_SETTINGS } from '../../../lib/protocol/agents';
import { AgentRunError } from '../../../server/runtime/agents/agentRunError';
import { CodexProfiles } from '../../../server/runtime/agents/codex/codexProfiles';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { startCodexAdapter, type CodexAdapterHarness } from '../../fixtures/codexAdapterHarness';
import { codexConfigToml, responsesInput } from '../../fixtures/fakeCodexModel';
import { messageReply, queuedReplies } from '../../fixtures/fakeCodexTimeline';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { recordingRunContext } from '../../fixtures/recordingRunContext';

/** The text of every user message the model was sent, over all requests. */
function userTexts(model: FakeModelServer): string {
  return model.requests
    .flatMap((request) =>
      responsesInput(request)
        .filter((item) => item.role === 'user')
        .map((item) => JSON.stringify(item.content)),
    )
    .join('\n');
}

/**
 * UX-10: Codex's custom prompts are Markdown files in the profile's CODEX_HOME/prompts, which its
 * app server neither lists nor expands. The adapter lists them as `prompts:<name>` with their
 * front matter, and a message `/prompts:<name> args` reaches the real Codex (and so the model)
 * as the prompt's text with its placeholders filled.
 */
describe('UX-10 Codex custom prompts from the profile home, through the real app server', () => {
  let model: FakeModelServer;
  let harness: CodexAdapterHarness;
  const settings = { codex: DEFAULT_CODEX_SETTINGS };

  beforeAll(async () => {
    model = await startFakeModelServer(queuedReplies([messageReply('Reviewed.'), messageReply('Summed up.')]));
    harness = startCodexAdapter({ codexBin: installedAgents().codexBin, configToml: codexConfigToml(model.url) });
    const home = new CodexProfiles(harness.db, harness.dataDir).profile(null)!.home;
    const prompts = path.join(home, 'prompts');
    fs.mkdirSync(prompts, { recursive: true });
    fs.writeFileSync(
      path.join(prompts, 'review.md'),
      '---\ndescription: "Review one file"\nargument-hint: FILE=<path> [FOCUS=<topic>]\n---\nReview $FILE, looking hard at $FOCUS. Costs stay in $$USD.\n',
    );
    fs.writeFileSync(path.join(prompts, 'sum.md'), 'Sum up $1 then $2; all: $ARGUMENTS\n');
    fs.writeFileSync(path.join(prompts, 'notes.txt'), 'not a prompt');
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    await harness?.close();
    await model?.close();
  });

  it('UX-10 the prompts of the profile home are listed as prompts:<name> with description and argument hint', async () => {
    expect(await harness.agent.commands({ sessionId: harness.sessionId, settings })).toEqual([
      { name: 'prompts:review', description: 'Review one file', argumentHint: 'FILE=<path> [FOCUS=<topic>]' },
      { name: 'prompts:sum', description: 'Saved prompt' },
    ]);
  });

  it('UX-10 a named-argument prompt missing an argument fails the turn in words before Codex is asked', async () => {
    const before = model.requests.length;
    const run = harness.agent.run(
      recordingRunContext({
        sessionId: harness.sessionId,
        cwd: harness.project,
        text: '/prompts:review FILE=src/app.ts',
      }).context,
    );
    await expect(run).rejects.toThrow(AgentRunError);
    await expect(run).rejects.toThrow(
      'Could not use /prompts:review: missing FOCUS. Give them as KEY=value (quote values with spaces).',
    );
    expect(model.requests.length).toBe(before);
  });

  it(
    'UX-10 /prompts:<name> with arguments reaches the model as the expanded prompt, named and positional',
    async () => {
      await harness.agent.run(
        recordingRunContext({
          sessionId: harness.sessionId,
          cwd: harness.project,
          text: '/prompts:review FILE=src/app.ts FOCUS="error paths"',
        }).context,
      );
      expect(userTexts(model)).toContain('Review src/app.ts, looking hard at error paths. Costs stay in $$USD.');
      await harness.agent.run(
        recordingRunContext({
          sessionId: harness.sessionId,
          cwd: harness.project,
          text: '/prompts:sum one "two words" three',
        }).context,
      );
      expect(userTexts(model)).toContain('Sum up one then two words; all: one two words three');
      expect(userTexts(model)).not.toContain('/prompts:');
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
