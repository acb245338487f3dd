import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../fixtures/agentPackages';
import { createAgentSession, messageState, waitForRows } from '../fixtures/agentSessions';
import {
  MAIN_PROMPT,
  timelineTourScenario,
  tourUserSettings,
  writeTourProject,
} from '../fixtures/claudeTimelineScenario';
import { claudeEnv } from '../fixtures/fakeClaudeModel';
import { claudeScenarioScript, type ScenarioReply } from '../fixtures/fakeClaudeScenario';
import { allSettled, conformanceRandom, conformanceSeed, kindCounts, rowState } from '../fixtures/timelineConformance';
import { useModelAppSuite } from './appSuite';
import { useConformancePage } from './timeline/conformancePage';
import { expectDrawnThroughReloads, expectedRendering, readRenderedRows, withoutIndex } from './timeline/renderedRows';

// TL-3 TL-4 for Claude in real Chromium against the real runtime and the real Claude Code: the
// timeline tour (text, reasoning, a plan, Read, Edit, Write, WebSearch, an MCP tool, a refused
// WebFetch, a subagent, Bash allowed and declined, an API error) and a turn with an accepted
// approval, in a seeded order; the rows drawn live, after a reload offline (the app's cache),
// online (the runtime) and after a runtime SIGKILL and restart are the runtime's rows.

const SEED = conformanceSeed();
const random = conformanceRandom(SEED);
const seeded = (what: string) => `${what} (seed ${SEED}; replay with HBCODE_CONFORMANCE_SEED=${SEED})`;
const ACCEPT_PROMPT = 'ACCEPT-TURN: touch a file';
const bash = (command: string): ScenarioReply => ({
  blocks: [{ type: 'tool_use', name: 'Bash', input: { command, description: 'Run the scripted command' } }],
});
const text = (words: string): ScenarioReply => ({ blocks: [{ type: 'text', deltas: [words] }] });

describe('TL-3 Claude timeline conformance in Chromium: live, after reloads and after a restart, the runtime’s rows', () => {
  let projectDir = '';
  const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-claude-conformance-app-'));
  const suite = useModelAppSuite(
    (request) => {
      const tour = timelineTourScenario(projectDir);
      return claudeScenarioScript({
        ...tour,
        conversations: { ...tour.conversations, [ACCEPT_PROMPT]: [bash('touch accepted.txt'), text('Touched.')] },
      })(request);
    },
    {
      runtime: ({ modelUrl, projectDir: dir }) => {
        projectDir = dir;
        writeTourProject(dir);
        // TL-5: the user's own settings, read by Claude Code itself.
        fs.writeFileSync(path.join(configDir, 'settings.json'), JSON.stringify(tourUserSettings()));
        return { env: claudeEnv(modelUrl, configDir, installedAgents().claudeBin) };
      },
      timeoutMs: AGENT_INSTALL_TIMEOUT_MS,
    },
  );
  const conformance = useConformancePage(suite);
  afterAll(() => fs.rmSync(configDir, { recursive: true, force: true }));

  it(
    'TL-3 TL-4 TL-1 TL-9 ACC-4 the Claude rows drawn live, after a reload offline and online, and after a restart are the runtime’s rows',
    async () => {
      const { client, context, page } = conformance;
      const sessionId = await createAgentSession(client, 'claude');
      await conformance.open(sessionId);
      // ACC-4: the person declines what the rules refuse and allows everything else.
      client.onNotification('approval.changed', ({ sessionId: id, approval }) => {
        if (id !== sessionId || approval.decision !== null || approval.expired) return;
        const decision = approval.command?.includes('refused') ? 'decline' : 'accept';
        void client.call('approvals.answer', { sessionId, approvalId: approval.id, decision }).catch(() => undefined);
      });
      const run = async (words: string, state: string) => {
        const { runId } = await client.call('chat.send', { sessionId, operationId: crypto.randomUUID(), text: words });
        await waitForRows(client, sessionId, (rows) => messageState(rows, runId) === state, 180_000);
      };
      // The tour ends with an API error: that turn fails (ACC-3).
      const tour = () => run(MAIN_PROMPT, 'failed');
      const accepted = () => run(ACCEPT_PROMPT, 'done');
      const turns = random.shuffled([tour, accepted]);
      for (const turn of turns) await turn();
      const rows = await waitForRows(client, sessionId, allSettled, 180_000);
      const what = (phase: string) =>
        seeded(`${phase}; runtime rows:\n${rows.map((r) => `${r.id} ${r.kind} ${rowState(r)}`).join('\n')}`);
      const counts = kindCounts(rows);
      for (const kind of [
        'message',
        'command',
        'agentText',
        'reasoning',
        'plan',
        'fileChange',
        'toolCall',
        'subagent',
        'turnEnd',
        'agentError',
      ])
        expect(counts[kind], what(kind)).toBeGreaterThan(0);

      await expectDrawnThroughReloads(page, context, rows, what);

      // A SIGKILL and a restart: the page reconnects and draws the same rows from the new runtime.
      await conformance.killAndRestart();
      const { client: restarted, page: reloaded } = conformance;
      expect(
        (await waitForRows(restarted, sessionId, allSettled)).map((r) => r.id),
        what('the runtime rows after a restart'),
      ).toEqual(rows.map((r) => r.id));
      expect(withoutIndex(await readRenderedRows(reloaded)), what('after a runtime restart')).toEqual(
        expectedRendering(rows),
      );
    },
    AGENT_TEST_TIMEOUT_MS * 2,
  );
});
