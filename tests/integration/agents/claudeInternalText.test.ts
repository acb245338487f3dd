import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS } from '../../fixtures/agentPackages';
import { createAgentSession, messageState, waitForRows } from '../../fixtures/agentSessions';
import { startClaudeRuntime, type ClaudeRuntime } from '../../fixtures/claudeRuntime';

const PROMPT = 'BACKGROUND-SURVEY: start a survey in the background';
const SUBAGENT_PROMPT = 'SURVEY-TASK: count the notes';
const REPORT = 'There are 3 notes.';
const AFTER_LAUNCH = 'The survey runs in the background.';

/** Words of what Claude Code writes for the model around a background subagent (TL-8): none may reach a row. */
const FOR_THE_MODEL =
  /Async agent launched|internal metadata|task-notification|<task-id>|SYSTEM NOTIFICATION|subagent_tokens|automated background-task event/;

/**
 * TL-8 with the real Claude Code: an Agent call run in the background. Claude Code answers the call
 * with "Async agent launched successfully. (This tool result is internal metadata …", and when the
 * subagent ends it tells the model with a `<task-notification>` wrapped in a system notice, which
 * starts a turn of its own. The person sees a subagent row that runs, then ends with its report.
 */
describe('TL-8 a background subagent through the runtime: no text meant for the model on any row', () => {
  let rig: ClaudeRuntime;

  beforeAll(async () => {
    rig = await startClaudeRuntime({
      scenario: () => ({
        conversations: {
          [PROMPT]: [
            {
              blocks: [
                {
                  type: 'tool_use',
                  name: 'Agent',
                  input: {
                    description: 'Count the notes',
                    prompt: SUBAGENT_PROMPT,
                    subagent_type: 'general-purpose',
                    run_in_background: true,
                  },
                },
              ],
            },
            { blocks: [{ type: 'text', deltas: [AFTER_LAUNCH] }] },
          ],
          [SUBAGENT_PROMPT]: [{ blocks: [{ type: 'text', deltas: [REPORT] }] }],
        },
      }),
    });
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    await rig?.close();
  });

  it(
    'TL-8 the launch result shows nothing, the subagent row ends completed with its report live and saved, and the notification is no message',
    async () => {
      const { client, live, model } = rig;
      const sessionId = await createAgentSession(client, 'claude');
      const { runId } = await client.call('chat.send', { sessionId, operationId: crypto.randomUUID(), text: PROMPT });
      await waitForRows(client, sessionId, (rows) => messageState(rows, runId) === 'done');

      // Claude Code really sent the model both texts this test keeps off the page.
      const sent = JSON.stringify(model.requests.map((r) => r.body));
      expect(sent).toContain('Async agent launched successfully.');
      expect(sent).toContain('<task-notification>');

      // Live: the subagent row ran, then ended with its report, under one id (TL-3).
      const subagentRows = () => live.filter((r) => r.kind === 'subagent');
      await waitForRows(client, sessionId, () =>
        subagentRows().some((r) => r.kind === 'subagent' && r.status === 'completed'),
      );
      const liveRows = subagentRows();
      expect(new Set(liveRows.map((r) => r.id)).size).toBe(1);
      expect(liveRows[0]).toMatchObject({ status: 'running' });
      expect(liveRows.at(-1)).toMatchObject({ status: 'completed', result: { text: REPORT } });
      expect(JSON.stringify(live)).not.toMatch(FOR_THE_MODEL);

      // Saved: the same row, completed with the notification's report, and no message but the person's.
      const subagentId = liveRows[0]!.id;
      const settled = await waitForRows(client, sessionId, (rows) =>
        rows.some((r) => r.kind === 'subagent' && r.id === subagentId && r.source === 'saved'),
      );
      expect(settled.filter((r) => r.kind === 'subagent')).toEqual([
        expect.objectContaining({
          id: subagentId,
          status: 'completed',
          result: expect.objectContaining({ text: REPORT }),
        }),
      ]);
      expect(settled.filter((r) => r.kind === 'message' || r.kind === 'userText').map((r) => r.kind)).toEqual([
        'message',
      ]);
      expect(settled.find((r) => r.kind === 'agentText' && r.text === AFTER_LAUNCH)).toBeDefined();
      expect(JSON.stringify(settled)).not.toMatch(FOR_THE_MODEL);

      // Its own timeline holds the subagent's words, and nothing meant for the model either.
      const inside = await client.call('sessions.timeline', { sessionId, parentItemId: liveRows[0]!.itemId });
      expect(inside.rows.some((r) => r.kind === 'agentText' && r.text === REPORT)).toBe(true);
      expect(JSON.stringify(inside.rows)).not.toMatch(FOR_THE_MODEL);

      // After a restart, read again through a new host: the same rows.
      const { before, after } = await rig.timelineAcrossRestart(sessionId);
      expect(after).toEqual(before);
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
