import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { applyPatch } from 'diff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import type { AgentItemRow, TimelineRow } from '../../../lib/protocol/rows';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import { createAgentSession, messageState, waitForRows } from '../../fixtures/agentSessions';
import {
  codexTimelineConfigToml,
  commandReply,
  failingReply,
  messageReply,
  patchCall,
  queuedReplies,
  searchAndLookupReply,
  streamedReply,
  STORY_BEFORE,
  STORY_PATCH,
} from '../../fixtures/fakeCodexTimeline';
import { startFakeModelServer, type FakeModelServer, type ScriptedReply } from '../../fixtures/fakeModelServer';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';

const ITEM_KINDS = new Set([
  'agentText',
  'reasoning',
  'plan',
  'fileChange',
  'toolCall',
  'subagent',
  'turnEnd',
  'compaction',
  'agentError',
  'rawItem',
  'userText',
]);
const isItemRow = (row: TimelineRow): row is AgentItemRow => ITEM_KINDS.has(row.kind);

describe('TL-1 TL-3 TL-4 Codex rows through the runtime: live, saved, and after a restart', () => {
  let model: FakeModelServer;
  let runtime: RuntimeProcess;
  let client: RpcClient;
  const queue: ScriptedReply[] = [];
  const live: AgentItemRow[] = [];
  /** Every row kind a client was sent, live rows or not. */
  const sentKinds = new Set<string>();

  const connect = async () => {
    client = await runtime.connect();
    client.onNotification('timeline.row', ({ row }) => {
      sentKinds.add(row.kind);
      if (isItemRow(row) && row.source === 'live') live.push(row);
    });
  };

  beforeAll(async () => {
    const { codexBin } = installedAgents();
    model = await startFakeModelServer(queuedReplies(queue));
    runtime = await startRuntimeProcess({
      env: { HBCODE_CODEX_BIN: codexBin, HBCODE_CODEX_CONFIG_TOML: codexTimelineConfigToml(model.url) },
    });
    fs.writeFileSync(path.join(runtime.projectDir, 'story.txt'), STORY_BEFORE);
    await connect();
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    client?.close();
    await runtime?.stop();
    await model?.close();
  });

  it(
    'TL-1 every row kind of a turn arrives live, is replaced by its saved row, and the same rows come back after a restart',
    async () => {
      const sessionId = await createAgentSession(client, 'codex');
      queue.push(
        streamedReply(['Looking ', 'at the story.'], ['Changing ', 'the **story**', ' now.'], [patchCall(STORY_PATCH)]),
        commandReply('cat story.txt'),
        searchAndLookupReply('story structure', 'plot'),
        messageReply('Finished.'),
      );
      const { runId } = await client.call('chat.send', {
        sessionId,
        operationId: crypto.randomUUID(),
        text: 'Edit the story',
      });
      // Live: the rows arrive while the turn runs, as `live` rows of this run.
      const kindsLive = () => new Set(live.filter((r) => r.runId === runId).map((r) => r.kind));
      await waitForRows(client, sessionId, (rows) => messageState(rows, runId) === 'done');
      expect([...kindsLive()].sort()).toEqual(['agentText', 'fileChange', 'reasoning', 'toolCall', 'turnEnd']);
      expect(live.find((r) => r.kind === 'agentText' && r.text === 'Changing the **story** now.')).toBeDefined();

      // Settled: the saved rows take the live rows' places, by the same ids.
      const settled = await waitForRows(
        client,
        sessionId,
        (rows) => rows.filter(isItemRow).length >= 6 && rows.filter(isItemRow).every((r) => r.source === 'saved'),
      );
      const items = settled.filter(isItemRow);
      expect(new Set(items.map((r) => r.id))).toEqual(new Set(live.filter((r) => r.runId === runId).map((r) => r.id)));
      expect(items.every((r) => r.runId === runId)).toBe(true);
      const change = items.find((r) => r.kind === 'fileChange');
      expect(change?.kind).toBe('fileChange');
      if (change?.kind !== 'fileChange') return;
      const story = change.files.find((f) => f.path === 'story.txt')!;
      expect(applyPatch(STORY_BEFORE, story.diff.text)).toBe(
        fs.readFileSync(path.join(runtime.projectDir, 'story.txt'), 'utf8'),
      );
      const added = change.files.find((f) => f.path === 'added.txt')!;
      expect(applyPatch('', added.diff.text)).toBe(fs.readFileSync(path.join(runtime.projectDir, 'added.txt'), 'utf8'));
      expect(items.find((r) => r.kind === 'toolCall' && r.tool === 'mcp:tiny/lookup')).toMatchObject({
        status: 'completed',
        result: { text: 'definition of plot: a test word' },
      });
      expect(items.find((r) => r.kind === 'toolCall' && r.tool === 'webSearch')).toMatchObject({
        title: 'Search "story structure"',
      });
      expect(items.find((r) => r.kind === 'reasoning')).toMatchObject({ text: 'Looking at the story.' });
      expect(items.find((r) => r.kind === 'turnEnd')).toMatchObject({
        status: 'completed',
        usage: { inputTokens: 400, outputTokens: 120 },
      });
      expect(settled.filter((r) => r.kind === 'command' && r.runId === runId)).toHaveLength(1);
      // The closing text is the agent's own text row: no settled row repeats it on a client (TL-3).
      expect(sentKinds.has('settled')).toBe(false);
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

      // A failing turn: the error Codex reports, and a failed turn end with the message.
      queue.push(failingReply('Scripted refusal.'));
      const failed = await client.call('chat.send', { sessionId, operationId: crypto.randomUUID(), text: 'Fail now' });
      const afterFailure = await waitForRows(
        client,
        sessionId,
        // The error row may land after the saved turn end on a busy machine: wait for both.
        (rows) =>
          messageState(rows, failed.runId) === 'failed' &&
          rows.some((r) => r.kind === 'turnEnd' && r.runId === failed.runId && r.source === 'saved') &&
          rows.some((r) => r.kind === 'agentError' && r.runId === failed.runId),
      );
      expect(afterFailure.find((r) => r.kind === 'agentError' && r.runId === failed.runId)).toMatchObject({
        message: expect.stringContaining('Scripted refusal.'),
      });
      expect(afterFailure.find((r) => r.kind === 'turnEnd' && r.runId === failed.runId)).toMatchObject({
        status: 'failed',
        error: expect.stringContaining('Scripted refusal.'),
      });

      // After a restart the saved timeline is the same, read from a new Codex child.
      const before = (await client.call('sessions.timeline', { sessionId })).rows;
      client.close();
      runtime = await runtime.restart();
      await connect();
      const after = (await client.call('sessions.timeline', { sessionId })).rows;
      expect(after).toEqual(before);
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
