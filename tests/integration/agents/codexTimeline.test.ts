import fs from 'node:fs';
import path from 'node:path';
import { applyPatch } from 'diff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentItem } from '../../../lib/protocol/rows';
import type { HistoryEntry } from '../../../server/runtime/agents/agent';
import type { CodexAgent } from '../../../server/runtime/agents/codex/codexAgent';
import { startCodexAdapter, wholeHistory, type CodexAdapterHarness } from '../../fixtures/codexAdapterHarness';
import {
  AGENT_INSTALL_TIMEOUT_MS,
  AGENT_TEST_TIMEOUT_MS,
  codexProtocolNames,
  installedAgents,
} from '../../fixtures/agentPackages';
import { CODEX_LIVE } from '../../../server/runtime/agents/codex/codexNotificationSchemas';
import {
  codexTimelineConfigToml,
  commandReply,
  failingReply,
  messageReply,
  patchCall,
  queuedReplies,
  REPLY_USAGE,
  searchAndLookupReply,
  streamedReply,
} from '../../fixtures/fakeCodexTimeline';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';
import type { ScriptedReply } from '../../fixtures/fakeModelServer';
import { hugeText } from '../../fixtures/hugeAnswer.mjs';
import { recordingRunContext, type RunRecording } from '../../fixtures/recordingRunContext';

const NOTES_BEFORE = 'alpha\nbeta\ngamma\n';
const PATCH = `*** Begin Patch
*** Update File: notes.txt
@@
 alpha
-beta
+BETA
 gamma
*** Add File: fresh.md
+# Fresh
+a new file
*** End Patch`;

const savedItems = (entries: HistoryEntry[]) => entries.flatMap((entry) => (entry.kind === 'item' ? [entry.item] : []));
const byKind = <K extends AgentItem['kind']>(items: AgentItem[], kind: K) =>
  items.filter((item): item is Extract<AgentItem, { kind: K }> => item.kind === kind);

function hugeLookup(items: AgentItem[]): Extract<AgentItem, { kind: 'toolCall' }> {
  return byKind(items, 'toolCall').find((t) => t.tool === 'mcp:tiny/lookup' && t.input.text.includes('huge'))!;
}

/** One field's whole text, read through the agent 256 KiB at a time. */
async function readWhole(
  agent: CodexAgent,
  sessionId: string,
  cwd: string,
  itemId: string,
  field: string,
): Promise<Buffer> {
  const parts: Buffer[] = [];
  let offset = 0;
  for (let i = 0; i < 1000; i += 1) {
    const slice = await agent.readItemText!({
      sessionId,
      cwd,
      parentItemId: null,
      itemId,
      field,
      offset,
      length: 256 * 1024,
    });
    parts.push(slice.bytes);
    offset += slice.bytes.length;
    if (slice.bytes.length === 0 || offset >= slice.availableBytes) break;
  }
  return Buffer.concat(parts);
}

/** A live item as history keeps it: error rows are stamped when the turn ended, not when Codex reported them. */
function comparable(item: AgentItem): unknown {
  if (item.kind === 'agentError') return { ...item, createdAt: 0 };
  // Codex keeps a shorter copy of a huge result in its history than it reports live.
  if (item.kind === 'toolCall' && item.input.text.includes('huge')) return { ...item, result: null };
  return item;
}

describe('TL-1 Codex turns become timeline rows, live and from the saved thread', () => {
  let model: FakeModelServer;
  let harness: CodexAdapterHarness;
  let agent: CodexAgent;
  let sessionId: string;
  let project: string;
  const queue: ScriptedReply[] = [];
  let first: RunRecording;
  let failed: RunRecording;
  let failure: unknown;

  beforeAll(async () => {
    model = await startFakeModelServer(queuedReplies(queue));
    harness = startCodexAdapter({
      codexBin: installedAgents().codexBin,
      configToml: codexTimelineConfigToml(model.url),
      files: { 'notes.txt': NOTES_BEFORE },
    });
    ({ agent, sessionId, project } = harness);
    expect(agent.available()).toBe(true);

    queue.push(
      streamedReply(
        ['Reading ', 'the notes', ' first.'],
        ['I will ', 'change **notes**', ' and add', ' a file.'],
        [patchCall(PATCH)],
      ),
      commandReply('cat notes.txt'),
      commandReply('grep -n BETA notes.txt'),
      searchAndLookupReply('vitest projects', 'yak'),
      searchAndLookupReply('huge answers', 'huge'),
      messageReply('All done.'),
    );
    first = recordingRunContext({ sessionId, cwd: project, text: 'Edit the notes' });
    await agent.run(first.context);

    queue.push(failingReply('The model refused: scripted failure.'));
    failed = recordingRunContext({ sessionId, cwd: project, text: 'Now fail' });
    failure = await agent.run(failed.context).then(
      () => null,
      (error: unknown) => error,
    );
  }, AGENT_INSTALL_TIMEOUT_MS);

  afterAll(async () => {
    await harness?.close();
    await model?.close();
  });

  it('TL-1 every notification and method the timeline reads exists in the installed Codex', () => {
    const names = codexProtocolNames(installedAgents().codexBin);
    expect(Object.values(CODEX_LIVE).filter((method) => !names.serverNotifications.has(method))).toEqual([]);
    expect(
      ['thread/items/list', 'thread/turns/list', 'thread/resume'].filter((method) => !names.clientRequests.has(method)),
    ).toEqual([]);
    expect(names.serverNotifications.has('item/no-such-event')).toBe(false);
  });

  it('TL-1 agent text arrives in several deltas, each update carrying the whole text so far, and ends as Markdown', () => {
    const texts = byKind(first.updates, 'agentText');
    const streamedId = texts.find((t) => t.text.startsWith('I will'))!.itemId;
    const versions = texts.filter((t) => t.itemId === streamedId);
    const streaming = versions.filter((v) => v.streaming).map((v) => v.text);
    expect(streaming).toEqual(
      expect.arrayContaining(['I will ', 'I will change **notes**', 'I will change **notes** and add']),
    );
    for (let i = 1; i < streaming.length; i += 1) expect(streaming[i]!.startsWith(streaming[i - 1]!)).toBe(true);
    expect(versions.at(-1)).toMatchObject({ streaming: false, text: 'I will change **notes** and add a file.' });
    expect(
      first
        .latest()
        .filter((i) => i.kind === 'agentText')
        .map((i) => (i.kind === 'agentText' ? i.text : '')),
    ).toContain('All done.');
  });

  it('TL-1 the reasoning summary streams and completes', () => {
    const reasoning = byKind(first.updates, 'reasoning');
    expect(reasoning.some((r) => r.streaming && r.text === 'Reading the notes')).toBe(true);
    expect(reasoning.at(-1)).toMatchObject({ streaming: false, text: 'Reading the notes first.' });
  });

  it('TL-1 the file change row has a unified diff per file that turns the old bytes into the bytes on disk', () => {
    const change = byKind(first.latest(), 'fileChange')[0]!;
    expect(change.status).toBe('completed');
    const notes = change.files.find((f) => f.path === 'notes.txt')!;
    const fresh = change.files.find((f) => f.path === 'fresh.md')!;
    expect(notes).toMatchObject({ change: 'update', added: 1, removed: 1, binary: false, movePath: null });
    expect(fresh).toMatchObject({ change: 'add', added: 2, removed: 0, binary: false });
    expect(notes.diff.text).toMatch(/^--- a\/notes\.txt\n\+\+\+ b\/notes\.txt\n@@ /);
    expect(applyPatch(NOTES_BEFORE, notes.diff.text)).toBe(fs.readFileSync(path.join(project, 'notes.txt'), 'utf8'));
    expect(applyPatch('', fresh.diff.text)).toBe(fs.readFileSync(path.join(project, 'fresh.md'), 'utf8'));
    expect(
      Buffer.from(applyPatch(NOTES_BEFORE, notes.diff.text) as string).equals(
        fs.readFileSync(path.join(project, 'notes.txt')),
      ),
    ).toBe(true);
  });

  it('TL-1 Read- and Grep-style commands stay command rows; the web search and the MCP tool are tool rows completed in place', () => {
    expect(first.commands.map((c) => c.command).join('\n')).toMatch(/cat notes\.txt[\s\S]*grep -n BETA notes\.txt/);
    expect(first.commands.every((c) => c.status === 'exited')).toBe(true);
    const tools = byKind(first.updates, 'toolCall');
    const search = tools.filter((t) => t.tool === 'webSearch' && t.title === 'Search "vitest projects"');
    expect(search.map((s) => s.status)).toEqual(['running', 'completed']);
    const lookups = tools.filter((t) => t.tool === 'mcp:tiny/lookup' && t.input.text.includes('yak'));
    expect(lookups[0]).toMatchObject({ status: 'running', result: null });
    expect(lookups.at(-1)).toMatchObject({
      status: 'completed',
      error: null,
      result: { text: 'definition of yak: a test word', truncated: false },
    });
  });

  it('TL-1 a 10 MiB tool result: the live row gets all Codex passes on, the saved row 64 KiB inline and marked truncated, the rest read through the agent', async () => {
    const huge = hugeLookup(first.latest());
    const sent = hugeText();
    // Codex itself cuts a result this large before it reports it, and says so in the text.
    expect(huge.result!.text.startsWith('Truncated tool output:\nline 00000000 of the huge answer\n')).toBe(true);
    expect(huge.result!.byteLength).toBeGreaterThan(64 * 1024);
    expect(huge.result!.byteLength).toBeLessThan(sent.length);
    // Live items carry their whole text: the overlay keeps it and cuts the row on the wire.
    expect(huge.result).toMatchObject({ truncated: false, byteLength: Buffer.byteLength(huge.result!.text) });
    const saved = hugeLookup(savedItems((await wholeHistory(harness, 50)).entries));
    const whole = await readWhole(agent, sessionId, project, saved.itemId, 'result');
    expect(whole.length).toBe(saved.result!.byteLength);
    expect(Buffer.byteLength(saved.result!.text)).toBeLessThanOrEqual(64 * 1024);
    expect(whole.toString('utf8').startsWith(saved.result!.text)).toBe(true);
    // What Codex kept is the start of what the server sent, behind its own notes that it cut it.
    const kept = whole.toString('utf8').replace(/^(Truncated tool output:\n)+/, '');
    expect(sent.startsWith(kept.split('\n').slice(0, 100).join('\n'))).toBe(true);
  });

  it('TL-1 the turn ends with its status, duration and token usage', () => {
    const end = byKind(first.updates, 'turnEnd');
    expect(end).toHaveLength(1);
    const requests = 6;
    expect(end[0]).toMatchObject({
      status: 'completed',
      error: null,
      usage: {
        inputTokens: REPLY_USAGE.inputTokens * requests,
        outputTokens: REPLY_USAGE.outputTokens * requests,
        cachedInputTokens: REPLY_USAGE.cachedInputTokens * requests,
        reasoningTokens: REPLY_USAGE.reasoningTokens * requests,
      },
    });
    expect(end[0]!.durationMs).toBeGreaterThan(0);
    expect(first.activity).toBeGreaterThan(first.updates.length);
  });

  it('TL-1 a failing turn shows the error Codex reports and ends failed, with the message', () => {
    expect(failure).toMatchObject({ message: expect.stringContaining('scripted failure') });
    const errors = byKind(failed.updates, 'agentError');
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]!.message).toContain('scripted failure');
    expect(byKind(failed.updates, 'turnEnd').at(-1)).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('scripted failure'),
    });
  });

  it('TL-4 the saved thread, page by page, has the same items with the same ids as the live turn, user messages by their client id', async () => {
    const { entries, pages } = await wholeHistory(harness, 3);
    expect(pages).toBeGreaterThan(3);
    const saved = savedItems(entries);
    const live = [...first.latest(), ...failed.latest()];
    expect(saved.map((item) => item.itemId)).toEqual(live.map((item) => item.itemId));
    expect(saved.map(comparable)).toEqual(live.map(comparable));
    const users = entries.filter((e) => e.kind === 'user');
    expect(users.map((u) => u.kind === 'user' && u.clientId)).toEqual([
      first.context.operationId,
      failed.context.operationId,
    ]);
    expect(entries.filter((e) => e.kind === 'command').map((e) => e.itemId)).toEqual(
      first.commands.map((c) => c.commandId),
    );
    // Paging back from the oldest page reaches the newest again, without repeats.
    const { entries: again } = await wholeHistory(harness, 7);
    expect(again).toEqual(entries);
  });

  it('TL-4 newer cursors walk forward from an older page to the newest without a gap or repeat', async () => {
    const { entries } = await wholeHistory(harness, 4);
    let page = await agent.historyPage({
      sessionId,
      cwd: project,
      parentItemId: null,
      before: null,
      after: null,
      limit: 4,
    });
    for (let i = 0; i < 100 && page.older; i += 1)
      page = await agent.historyPage({
        sessionId,
        cwd: project,
        parentItemId: null,
        before: page.older,
        after: null,
        limit: 4,
      });
    const forward: HistoryEntry[] = [...page.entries];
    for (let i = 0; i < 100 && page.newer; i += 1) {
      page = await agent.historyPage({
        sessionId,
        cwd: project,
        parentItemId: null,
        before: null,
        after: page.newer,
        limit: 4,
      });
      forward.push(...page.entries);
    }
    expect(forward).toEqual(entries);
  });

  it(
    'TL-4 after a runtime restart a new Codex child reads the same saved rows, diffs equal to the disk',
    async () => {
      const { entries: before } = await wholeHistory(harness, 5);
      agent = await harness.restart();
      const { entries: after } = await wholeHistory(harness, 5);
      expect(after).toEqual(before);
      const change = byKind(savedItems(after), 'fileChange')[0]!;
      const notes = change.files.find((f) => f.path === 'notes.txt')!;
      expect(applyPatch(NOTES_BEFORE, notes.diff.text)).toBe(fs.readFileSync(path.join(project, 'notes.txt'), 'utf8'));
      const diff = await agent.readItemText!({
        sessionId,
        cwd: project,
        parentItemId: null,
        itemId: change.itemId,
        field: 'files.1.diff',
        offset: 0,
        length: 4096,
      });
      expect(diff.bytes.toString()).toBe(change.files[1]!.diff.text);
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
