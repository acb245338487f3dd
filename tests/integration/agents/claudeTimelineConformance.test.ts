import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { TimelineRow } from '../../../lib/protocol/rows';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { createAgentSession, messageState, waitForRows } from '../../fixtures/agentSessions';
import { MAIN_PROMPT, MCP_SERVER, timelineTourScenario, tourUserSettings } from '../../fixtures/claudeTimelineScenario';
import { claudeEnv } from '../../fixtures/fakeClaudeModel';
import { claudeScenarioScript, type ScenarioReply } from '../../fixtures/fakeClaudeScenario';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import {
  allSettled,
  conformanceRandom,
  conformanceSeed,
  followLive,
  kindCounts,
  pagedRows,
  rowLines,
} from '../../fixtures/timelineConformance';
import { waitUntil } from '../../fixtures/waitUntil';

// TL-3 conformance for Claude: the timeline tour (text, reasoning, a TodoWrite plan, Read, Edit,
// Write, WebSearch, an MCP tool, a refused WebFetch, a subagent, Bash allowed and declined, an API
// error at the end), a turn with an approval accepted, a turn stopped while its Bash command runs
// and one steered while its Bash command runs, in a seeded order; the rows followed live (the
// subagent's own timeline too), the saved pages at seeded page sizes and the rows after a SIGKILL
// and a restart must be one list (ids, order, states).

const MCP_FIXTURE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'fixtures',
  'mcpStdioServer.mjs',
);
const SEED = conformanceSeed();
const random = conformanceRandom(SEED);
const seeded = (what: string) => `${what} (seed ${SEED}; replay with HBCODE_CONFORMANCE_SEED=${SEED})`;

const PROMPTS = {
  accept: 'ACCEPT-TURN: touch a file',
  stop: 'STOP-TURN: run a long command',
  steer: 'STEER-TURN: run a command that waits',
  steerText: 'STEER-WORDS: and say hello',
};
const bash = (command: string): ScenarioReply => ({
  blocks: [{ type: 'tool_use', name: 'Bash', input: { command, description: 'Run the scripted command' } }],
});
const text = (words: string): ScenarioReply => ({ blocks: [{ type: 'text', deltas: [words] }] });

describe('TL-3 Claude timeline conformance: live, paged and after a restart, one list', () => {
  let model: FakeModelServer;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  let configDir: string;

  beforeAll(async () => {
    const { claudeBin } = installedAgents();
    let projectDir = '';
    model = await startFakeModelServer((request) => {
      const tour = timelineTourScenario(projectDir);
      return claudeScenarioScript({
        ...tour,
        conversations: {
          ...tour.conversations,
          [PROMPTS.accept]: [bash('touch accepted.txt'), text('Touched.')],
          [PROMPTS.stop]: [bash(`touch ${path.join(projectDir, 'stop-started')} && sleep 60`)],
          [PROMPTS.steer]: [
            bash(
              `touch ${path.join(projectDir, 'steer-started')} && while [ ! -f ${path.join(projectDir, 'steer-release')} ]; do sleep 0.1; done`,
            ),
            text('Released.'),
            text('Hello.'),
          ],
          [PROMPTS.steerText]: [text('Hello.')],
        },
      })(request);
    });
    configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-claude-conformance-'));
    // TL-5: the user's own settings and a project MCP server, read by Claude Code itself.
    fs.writeFileSync(path.join(configDir, 'settings.json'), JSON.stringify(tourUserSettings()));
    runtime = await startRuntimeProcess({ env: claudeEnv(model.url, configDir, claudeBin) });
    projectDir = runtime.projectDir;
    fs.writeFileSync(path.join(projectDir, 'notes.txt'), 'line 1\nline 2\nline 3\n');
    fs.writeFileSync(
      path.join(projectDir, '.mcp.json'),
      JSON.stringify({ mcpServers: { [MCP_SERVER]: { command: process.execPath, args: [MCP_FIXTURE] } } }),
    );
    client = await runtime.connect();
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    client?.close();
    await runtime?.stopIfRunning();
    await model?.close();
    if (configDir) fs.rmSync(configDir, { recursive: true, force: true });
  });

  it(
    'TL-3 TL-1 TL-9 ACC-4 ACC-6 the Claude rows of a tour, an approval, a Stop and a steer during Bash: the live rows are the saved rows on every page size, and the same after a SIGKILL and a restart',
    async () => {
      const sessionId = await createAgentSession(client, 'claude');
      const live = followLive(client, sessionId);
      // ACC-4: the person declines what the rules refuse in the tour, leaves the last turn's request
      // unanswered until the runtime dies, and allows everything else.
      client.onNotification('approval.changed', ({ sessionId: id, approval }) => {
        if (id !== sessionId || approval.decision !== null || approval.expired) return;
        const decision = approval.command?.includes('refused') ? 'decline' : 'accept';
        void client.call('approvals.answer', { sessionId, approvalId: approval.id, decision }).catch(() => undefined);
      });
      const send = (words: string, mode?: 'steer' | 'queue') =>
        client.call('chat.send', {
          sessionId,
          operationId: crypto.randomUUID(),
          text: words,
          ...(mode ? { mode } : {}),
        });
      const finished = (runId: string, state = 'done') =>
        waitForRows(client, sessionId, (rows) => messageState(rows, runId) === state, 180_000);

      const tour = async () => {
        // The tour ends with an API error: the turn fails (ACC-3).
        await finished((await send(MAIN_PROMPT)).runId, 'failed');
      };
      const accepted = async () => {
        await finished((await send(PROMPTS.accept)).runId);
      };
      const started = (name: string) =>
        waitUntil(() => fs.existsSync(path.join(runtime.projectDir, name)), `${name}: the Bash command runs`, {
          timeoutMs: 120_000,
        });
      // ACC-6: Stop while the Bash command runs; its row and the interrupted end show live as saved.
      const stopped = async () => {
        const { runId } = await send(PROMPTS.stop);
        await started('stop-started');
        await client.call('run.cancel', { sessionId, runId });
        await finished(runId, 'cancelled');
      };
      // ACC-6: a steer while the Bash command runs: the command's row was there first.
      const steered = async () => {
        const { runId } = await send(PROMPTS.steer);
        await started('steer-started');
        await send(PROMPTS.steerText, 'steer');
        fs.writeFileSync(path.join(runtime.projectDir, 'steer-release'), '');
        await finished(runId);
      };
      const turns = random.shuffled([tour, accepted, stopped, steered]);
      for (const turn of turns) await turn();

      const saved = await waitForRows(client, sessionId, allSettled, 180_000);
      const context = `${seeded(`turns ${turns.map((t) => t.name).join(', ')}`)}\n${rowLines(saved).join('\n')}`;
      expect(new Set(saved.map((r) => r.id)).size, context).toBe(saved.length);
      const counts = kindCounts(saved);
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
        expect(counts[kind], `${kind}: ${context}`).toBeGreaterThan(0);
      expect(
        saved.filter((r) => r.kind === 'turnEnd' && r.status === 'interrupted'),
        context,
      ).toHaveLength(1);
      expect(
        saved.filter((r) => r.kind === 'command' && r.status === 'cancelled'),
        context,
      ).toHaveLength(1);
      expect(fs.existsSync(path.join(runtime.projectDir, 'accepted.txt')), context).toBe(true);
      expect(fs.existsSync(path.join(runtime.projectDir, 'refused.txt')), context).toBe(false);

      await waitUntil(
        () => rowLines(live.rows()).join('\n') === rowLines(saved).join('\n'),
        () =>
          `the live rows match the saved rows (${seeded('')}):\n${rowLines(live.rows()).join('\n')}\n---\n${rowLines(saved).join('\n')}`,
        {
          timeoutMs: 30_000,
        },
      );
      const spawn = saved.find((r): r is Extract<TimelineRow, { kind: 'subagent' }> => r.kind === 'subagent')!;
      const child = (await client.call('sessions.timeline', { sessionId, parentItemId: spawn.itemId })).rows;
      expect(child.length, context).toBeGreaterThan(0);
      expect(rowLines(live.rows(spawn.itemId)), seeded('the subagent timeline live')).toEqual(rowLines(child));
      const sizes = random.pageSizes(4, 12);
      for (const limit of sizes) {
        expect(rowLines(await pagedRows(client, sessionId, limit)), seeded(`pages of ${limit}`)).toEqual(
          rowLines(saved),
        );
        expect(
          rowLines(await pagedRows(client, sessionId, limit, spawn.itemId)),
          seeded(`subagent pages of ${limit}`),
        ).toEqual(rowLines(child));
      }

      // No request waits when the runtime is killed here: a Claude request left unanswered at a
      // SIGKILL is claudeTimelineLive.test.ts's last case.
      client.close();
      await runtime.kill();
      runtime = await runtime.restart();
      client = await runtime.connect();
      const restarted = await waitForRows(client, sessionId, allSettled, 180_000);
      expect(rowLines(restarted), seeded('the rows after a SIGKILL and a restart')).toEqual(rowLines(saved));
      for (const limit of sizes)
        expect(
          rowLines(await pagedRows(client, sessionId, limit)),
          seeded(`pages of ${limit} after the restart`),
        ).toEqual(rowLines(restarted));
      expect(
        rowLines(await pagedRows(client, sessionId, 5, spawn.itemId)),
        seeded('the subagent timeline after the restart'),
      ).toEqual(rowLines(child));

      client.close();
      runtime = await runtime.restart();
      client = await runtime.connect();
      expect(
        rowLines((await client.call('sessions.timeline', { sessionId })).rows),
        seeded('the rows after a second restart'),
      ).toEqual(rowLines(restarted));
    },
    AGENT_TEST_TIMEOUT_MS * 3,
  );
});
