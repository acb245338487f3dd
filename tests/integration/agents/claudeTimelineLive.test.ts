import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TimelineRow } from '../../../lib/protocol/rows';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS } from '../../fixtures/agentPackages';
import { createAgentSession, messageState, waitForRows } from '../../fixtures/agentSessions';
import { startClaudeRuntime, type ClaudeRuntime } from '../../fixtures/claudeRuntime';
import type { ScenarioReply } from '../../fixtures/fakeClaudeScenario';
import { allSettled, followLive, rowLines } from '../../fixtures/timelineConformance';
import { waitUntil } from '../../fixtures/waitUntil';

// TL-3 with the real Claude Code: the moments where the live rows of a Claude turn used to differ
// from its saved pages and from the rows after a restart — a Stop during a Bash command, a steer
// while a Bash command runs, a subagent's closing text, and a request for approval left unanswered
// at the end of a turn. Each session's live rows must be its saved rows (ids, order, states), and
// the same after a SIGKILL and a restart.

const PROMPTS = {
  stop: 'STOP-DURING-BASH: run a long command',
  afterStop: 'AFTER-THE-STOP: go on',
  steer: 'STEER-DURING-BASH: run a command that waits',
  steerText: 'STEERED-WORDS: also say hello',
  subagent: 'SUBAGENT-REPORT: ask a subagent',
  subagentTask: 'SUBAGENT-TASK: read the notes and report',
  ask: 'ASK-AT-THE-END: run one command',
};
const REPORT = 'The notes have three lines.';
/** The command whose request for approval nobody answers (it writes, so Claude Code asks). */
const UNANSWERED = 'touch left-unanswered.txt';

const bash = (command: string): ScenarioReply => ({
  blocks: [{ type: 'tool_use', name: 'Bash', input: { command, description: 'Run the scripted command' } }],
});
const text = (words: string): ScenarioReply => ({ blocks: [{ type: 'text', deltas: [words] }] });
const subagentRow = (rows: readonly TimelineRow[]) =>
  rows.find((r): r is Extract<TimelineRow, { kind: 'subagent' }> => r.kind === 'subagent');

describe('TL-3 Claude live rows at a Stop, a steer, a subagent and an unanswered approval: the saved rows, and after a restart', () => {
  let rig: ClaudeRuntime;
  let projectDir = '';
  const marker = (name: string) => path.join(projectDir, name);
  /** Each session's saved rows once settled, compared again after the restart. */
  const settled = new Map<string, string[]>();

  beforeAll(async () => {
    rig = await startClaudeRuntime({
      scenario: (dir) => ({
        conversations: {
          [PROMPTS.stop]: [bash(`touch ${path.join(dir, 'stop-started')} && sleep 60`)],
          [PROMPTS.afterStop]: [text('Going on.')],
          [PROMPTS.steer]: [
            bash(
              `touch ${path.join(dir, 'steer-started')} && while [ ! -f ${path.join(dir, 'steer-release')} ]; do sleep 0.1; done && echo released`,
            ),
            text('Released.'),
            text('Said hello.'),
          ],
          [PROMPTS.steerText]: [text('Said hello.')],
          [PROMPTS.subagent]: [
            {
              blocks: [
                {
                  type: 'tool_use',
                  name: 'Agent',
                  input: {
                    description: 'Read the notes',
                    prompt: PROMPTS.subagentTask,
                    subagent_type: 'general-purpose',
                    run_in_background: false,
                  },
                },
              ],
            },
            text('The subagent is done.'),
          ],
          [PROMPTS.subagentTask]: [
            { blocks: [{ type: 'tool_use', name: 'Read', input: { file_path: path.join(dir, 'notes.txt') } }] },
            text(REPORT),
          ],
          [PROMPTS.ask]: [bash(UNANSWERED)],
        },
      }),
    });
    projectDir = rig.runtime.projectDir;
    fs.writeFileSync(path.join(projectDir, 'notes.txt'), 'line 1\nline 2\nline 3\n');
    // ACC-4: every request is allowed but the one this file leaves unanswered.
    rig.client.onNotification('approval.changed', ({ sessionId, approval }) => {
      if (approval.decision !== null || approval.expired || approval.command?.includes(UNANSWERED)) return;
      void rig.client
        .call('approvals.answer', { sessionId, approvalId: approval.id, decision: 'accept' })
        .catch(() => undefined);
    });
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    await rig?.close();
  });

  const send = (sessionId: string, words: string, mode?: 'steer') =>
    rig.client.call('chat.send', {
      sessionId,
      operationId: crypto.randomUUID(),
      text: words,
      ...(mode ? { mode } : {}),
    });

  /** The session's saved rows once settled, and its live rows the same list. */
  async function liveMatchesSaved(
    sessionId: string,
    live: ReturnType<typeof followLive>,
    parentItemId: string | null = null,
  ): Promise<string[]> {
    const read = async () =>
      (await rig.client.call('sessions.timeline', { sessionId, ...(parentItemId ? { parentItemId } : {}) })).rows;
    const saved = rowLines(
      await waitUntil(
        async () => {
          const rows = await read();
          return allSettled(rows) && rows;
        },
        'the saved rows settle',
        { timeoutMs: 120_000 },
      ),
    );
    await waitUntil(
      () => rowLines(live.rows(parentItemId)).join('\n') === saved.join('\n'),
      () =>
        `the live rows are the saved rows:\n${rowLines(live.rows(parentItemId)).join('\n')}\n--- saved ---\n${saved.join('\n')}`,
      { timeoutMs: 30_000 },
    );
    return saved;
  }

  it(
    'TL-3 ACC-6 TL-8 a turn stopped while its Bash command runs: live, its command row and its interrupted end, as saved, and nothing Claude Code adds for the model when the next turn resumes it',
    async () => {
      const sessionId = await createAgentSession(rig.client, 'claude');
      const live = followLive(rig.client, sessionId);
      const { runId } = await send(sessionId, PROMPTS.stop);
      await waitUntil(() => fs.existsSync(marker('stop-started')), 'the Bash command runs', { timeoutMs: 120_000 });
      // TL-1: the command's row is there while it runs.
      await waitUntil(
        () => live.rows().some((r) => r.kind === 'command' && r.status === 'running'),
        () => `a running command row live:\n${rowLines(live.rows()).join('\n')}`,
        { timeoutMs: 30_000 },
      );
      await rig.client.call('run.cancel', { sessionId, runId });
      await waitForRows(rig.client, sessionId, (rows) => messageState(rows, runId) === 'cancelled');
      expect(await liveMatchesSaved(sessionId, live)).toEqual([
        expect.stringMatching(/ message cancelled$/),
        expect.stringMatching(/ command cancelled exit=- complete=true$/),
        expect.stringMatching(/ turnEnd interrupted$/),
      ]);
      // The next turn resumes the conversation; Claude Code saves a filler answer for the stopped one then ("No response requested."), which is no row.
      const next = await send(sessionId, PROMPTS.afterStop);
      await waitForRows(rig.client, sessionId, (rows) => messageState(rows, next.runId) === 'done');
      const saved = await liveMatchesSaved(sessionId, live);
      expect(
        saved.slice(3).map((line) => line.replace(/^\S+ /, '')),
        saved.join('\n'),
      ).toEqual(['message done', 'agentText done', 'turnEnd completed']);
      settled.set(sessionId, saved);
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'TL-3 ACC-6 a steer sent while a Bash command runs: the command row was there first, live as saved',
    async () => {
      const sessionId = await createAgentSession(rig.client, 'claude');
      const live = followLive(rig.client, sessionId);
      const { runId } = await send(sessionId, PROMPTS.steer);
      await waitUntil(() => fs.existsSync(marker('steer-started')), 'the Bash command runs', { timeoutMs: 120_000 });
      await waitUntil(
        () => live.rows().some((r) => r.kind === 'command' && r.status === 'running'),
        () => `a running command row live:\n${rowLines(live.rows()).join('\n')}`,
        { timeoutMs: 30_000 },
      );
      const steer = await send(sessionId, PROMPTS.steerText, 'steer');
      await waitUntil(
        () => live.rows().some((r) => r.kind === 'message' && r.runId === steer.runId && r.steer === 'accepted'),
        'the steer is accepted',
        { timeoutMs: 30_000 },
      );
      fs.writeFileSync(marker('steer-release'), '');
      await waitForRows(rig.client, sessionId, (rows) => messageState(rows, runId) === 'done');
      const saved = await liveMatchesSaved(sessionId, live);
      const commandAt = saved.findIndex((line) => / command /.test(line));
      const steerAt = saved.findIndex((line) => line.includes(steer.runId));
      expect(commandAt, saved.join('\n')).toBeGreaterThan(-1);
      expect(commandAt, saved.join('\n')).toBeLessThan(steerAt);
      settled.set(sessionId, saved);
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'TL-3 TL-1 TL-8 a subagent: its row with its report and its own timeline live, closing text included, are its saved rows',
    async () => {
      const sessionId = await createAgentSession(rig.client, 'claude');
      const live = followLive(rig.client, sessionId);
      const { runId } = await send(sessionId, PROMPTS.subagent);
      await waitForRows(rig.client, sessionId, (rows) => messageState(rows, runId) === 'done');
      const saved = await liveMatchesSaved(sessionId, live);
      const spawn = subagentRow(live.rows())!;
      // TL-8: its report is the subagent's words, without what Claude Code hands the model with them.
      expect(spawn, saved.join('\n')).toMatchObject({ status: 'completed', result: { text: REPORT } });
      expect(subagentRow((await rig.client.call('sessions.timeline', { sessionId })).rows)).toMatchObject({
        result: { text: REPORT },
      });
      const child = await liveMatchesSaved(sessionId, live, spawn.itemId);
      const closing = live.rows(spawn.itemId).at(-1);
      expect(closing, child.join('\n')).toMatchObject({ kind: 'agentText', text: REPORT });
      settled.set(sessionId, saved);
      settled.set(`${sessionId}/${spawn.itemId}`, child);
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'TL-3 ACC-4 a request for approval left unanswered at the end of a turn: its row waits live as saved, and every session reads the same after a SIGKILL and a restart',
    async () => {
      const sessionId = await createAgentSession(rig.client, 'claude');
      const live = followLive(rig.client, sessionId);
      const { runId } = await send(sessionId, PROMPTS.ask);
      const approval = await waitUntil(
        async () => (await rig.client.call('approvals.list', { sessionId })).approvals.find((a) => a.decision === null),
        'the request for approval waits',
        { timeoutMs: 120_000 },
      );
      expect(approval.itemId).toMatch(/^toolu_/);
      // ACC-4: the row it names is there and running, the state the app shows as "waiting for your approval".
      const waiting = (rows: readonly TimelineRow[]) =>
        rows.find((r) => r.kind === 'command' && r.commandId === approval.itemId && r.status === 'running');
      await waitUntil(
        () => waiting(live.rows()),
        () => `the command row waits live:\n${rowLines(live.rows()).join('\n')}`,
        { timeoutMs: 30_000 },
      );
      const { rows } = await rig.client.call('sessions.timeline', { sessionId });
      expect(waiting(rows), rowLines(rows).join('\n')).toBeDefined();
      expect(messageState(rows, runId)).toBe('running');
      expect(rowLines(live.rows())).toEqual(rowLines(rows));

      await rig.runtime.kill();
      rig.runtime = await rig.runtime.restart();
      rig.client = await rig.runtime.connect();
      for (const [key, saved] of settled) {
        const [id, parentItemId] = key.split('/');
        const after = (
          await rig.client.call('sessions.timeline', { sessionId: id!, ...(parentItemId ? { parentItemId } : {}) })
        ).rows;
        expect(rowLines(after), `${key} after the restart`).toEqual(saved);
      }
      // The unanswered turn ended with the runtime; its command row keeps its place.
      const after = await waitForRows(rig.client, sessionId, allSettled);
      expect(
        after.findIndex((r) => r.kind === 'command' && r.commandId === approval.itemId),
        rowLines(after).join('\n'),
      ).toBe(rows.findIndex((r) => r.kind === 'command' && r.commandId === approval.itemId));
      // TL-9: it never ran: not run (cancelled, saying why), not a command the restart broke.
      const notRun = after.find((r) => r.kind === 'command' && r.commandId === approval.itemId);
      expect(notRun, rowLines(after).join('\n')).toMatchObject({
        status: 'cancelled',
        error: 'Not run: it was waiting for your approval when the runtime stopped.',
      });
    },
    AGENT_TEST_TIMEOUT_MS * 2,
  );
});
