import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { applyPatch } from 'diff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS } from '../../fixtures/agentPackages';
import { createAgentSession, messageState, waitForRows } from '../../fixtures/agentSessions';
import { isItemRow, startClaudeRuntime, type ClaudeRuntime } from '../../fixtures/claudeRuntime';

const PROMPT = 'RUNTIME-TOUR: edit the story';
const BEFORE = 'first\nsecond\nthird\n';

describe('TL-1 TL-3 TL-4 Claude rows through the runtime: live, saved, and after a restart', () => {
  let rig: ClaudeRuntime;

  beforeAll(async () => {
    rig = await startClaudeRuntime(
      {
        scenario: (projectDir) => {
          const story = path.join(projectDir, 'story.txt');
          return {
            conversations: {
              [PROMPT]: [
                {
                  blocks: [
                    { type: 'thinking', deltas: ['Reading ', 'the story.'] },
                    { type: 'text', deltas: ['Changing ', 'the **story**', ' now.'] },
                    {
                      type: 'tool_use',
                      name: 'Edit',
                      input: { file_path: story, old_string: 'second', new_string: 'SECOND' },
                    },
                  ],
                },
                { blocks: [{ type: 'tool_use', name: 'Read', input: { file_path: story } }] },
                // TL-1: the app offers Grep, which native builds leave out of the default tools.
                {
                  blocks: [
                    {
                      type: 'tool_use',
                      name: 'Grep',
                      input: { pattern: 'SECOND', path: story, output_mode: 'content' },
                    },
                  ],
                },
                { blocks: [{ type: 'text', deltas: ['Finished.'] }] },
              ],
            },
          };
        },
      },
      // TL-5: the user's own rules allow edits.
      { permissions: { allow: ['Edit'] } },
    );
    fs.writeFileSync(path.join(rig.runtime.projectDir, 'story.txt'), BEFORE);
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    await rig?.close();
  });

  it(
    'TL-1 a Claude turn arrives as live rows, the saved rows take their places by id, and the same rows come back after a restart',
    async () => {
      const { client, live, runtime } = rig;
      const sessionId = await createAgentSession(client, 'claude');
      const { runId } = await client.call('chat.send', { sessionId, operationId: crypto.randomUUID(), text: PROMPT });
      await waitForRows(client, sessionId, (rows) => messageState(rows, runId) === 'done');
      const liveOfRun = live.filter((r) => r.runId === runId);
      expect(new Set(liveOfRun.map((r) => r.kind))).toEqual(
        new Set(['reasoning', 'agentText', 'fileChange', 'toolCall', 'turnEnd']),
      );
      expect(liveOfRun.find((r) => r.kind === 'agentText' && r.text === 'Changing the **story** now.')).toBeDefined();
      expect(liveOfRun.find((r) => r.kind === 'turnEnd')).toMatchObject({
        status: 'completed',
        usage: expect.objectContaining({ outputTokens: expect.any(Number) }),
      });

      // Claude saves every row but the turn end, which the app keeps (TL-6): all take the live rows' places, by the same ids.
      const savedIds = new Set(liveOfRun.map((r) => r.id));
      const settled = await waitForRows(client, sessionId, (rows) => {
        const saved = rows.filter(isItemRow).filter((r) => r.source === 'saved');
        return [...savedIds].every((id) => saved.some((r) => r.id === id));
      });
      const items = settled.filter(isItemRow).filter((r) => r.source === 'saved');
      expect(items.every((r) => r.runId === runId)).toBe(true);
      const change = items.find((r) => r.kind === 'fileChange');
      if (change?.kind !== 'fileChange') throw new Error('no saved file change');
      expect(applyPatch(BEFORE, change.files[0]!.diff.text)).toBe(
        fs.readFileSync(path.join(runtime.projectDir, 'story.txt'), 'utf8'),
      );
      expect(items.find((r) => r.kind === 'toolCall' && r.tool === 'Read')).toMatchObject({
        status: 'completed',
        result: { text: expect.stringContaining('SECOND') },
      });
      expect(items.find((r) => r.kind === 'toolCall' && r.tool === 'Grep')).toMatchObject({
        status: 'completed',
        title: `Grep "SECOND" in ${path.join(runtime.projectDir, 'story.txt')}`,
        result: { text: expect.stringContaining('SECOND') },
      });
      expect(items.find((r) => r.kind === 'agentText' && r.text === 'Finished.')).toBeDefined();
      // TL-6: the saved turn end is the live one, the turn's last row.
      const liveEnd = liveOfRun.filter((r) => r.kind === 'turnEnd').at(-1)!;
      expect(items.filter((r) => r.kind === 'turnEnd')).toEqual([{ ...liveEnd, source: 'saved' }]);
      expect(items.at(-1)).toEqual({ ...liveEnd, source: 'saved' });
      // The user's message is the app's own message row, not a second one from the history.
      expect(settled.filter((r) => r.kind === 'message' || r.kind === 'userText').map((r) => r.kind)).toEqual([
        'message',
      ]);
      const text = await client.call('sessions.itemText', {
        sessionId,
        itemId: change.itemId,
        field: 'files.0.diff',
        offset: 0,
        length: 65536,
      });
      expect(Buffer.from(text.dataBase64, 'base64').toString()).toBe(change.files[0]!.diff.text);

      // After a restart the saved timeline is the same, read again through a new host.
      const { before, after } = await rig.timelineAcrossRestart(sessionId);
      expect(after).toEqual(before);
      expect(after.filter((r) => r.kind === 'turnEnd')).toEqual([{ ...liveEnd, source: 'saved' }]);
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
