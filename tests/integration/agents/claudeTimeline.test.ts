import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyPatch } from 'diff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentItem } from '../../../lib/protocol/rows';
import type { HistoryEntry } from '../../../server/runtime/agents/agent';
import { AGENT_INSTALL_TIMEOUT_MS, AGENT_TEST_TIMEOUT_MS, installedAgents } from '../../fixtures/agentPackages';
import {
  recordingContext,
  startClaudeAdapter,
  type ClaudeAdapterHarness,
  type RecordingContext,
} from '../../fixtures/claudeAdapter';
import {
  MAIN_PROMPT,
  MCP_SERVER,
  STREAMED_TEXT,
  SUBAGENT_PROMPT,
  timelineTourScenario,
  tourUserSettings,
} from '../../fixtures/claudeTimelineScenario';
import { claudeScenarioScript } from '../../fixtures/fakeClaudeScenario';
import { startFakeModelServer, type FakeModelServer } from '../../fixtures/fakeModelServer';

const MCP_FIXTURE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'fixtures',
  'mcpStdioServer.mjs',
);
const NOTES = 'line 1\nline 2\nline 3\n';

function ofKind<K extends AgentItem['kind']>(items: Iterable<AgentItem>, kind: K): Extract<AgentItem, { kind: K }>[] {
  return [...items].filter((item): item is Extract<AgentItem, { kind: K }> => item.kind === kind);
}

function toolCall(items: Iterable<AgentItem>, tool: string): Extract<AgentItem, { kind: 'toolCall' }> {
  const found = ofKind(items, 'toolCall').filter((item) => item.tool === tool && item.parentItemId === null);
  expect(found, `one ${tool} row`).toHaveLength(1);
  return found[0]!;
}

/** Every page from the newest back to the first, joined oldest first. */
async function allPages(
  harness: ClaudeAdapterHarness,
  sessionId: string,
  parentItemId: string | null,
  limit: number,
): Promise<{ entries: HistoryEntry[]; pages: number }> {
  const pages: HistoryEntry[][] = [];
  let before: string | null = null;
  for (let guard = 0; guard < 10_000; guard++) {
    const page = await harness.agent.historyPage({
      sessionId,
      cwd: harness.projectDir,
      parentItemId,
      before,
      after: null,
      limit,
    });
    pages.unshift(page.entries);
    if (page.older === null) break;
    before = page.older;
  }
  return { entries: pages.flat(), pages: pages.length };
}

function entryId(entry: HistoryEntry): string {
  return entry.kind === 'item' ? entry.item.itemId : entry.itemId;
}

describe('Claude Code turns as timeline rows, live and saved, through the Agent SDK', () => {
  let model: FakeModelServer;
  let harness: ClaudeAdapterHarness;
  let context: RecordingContext;
  let runError: unknown;
  let sessionId: string;
  let messageUuid: string;

  beforeAll(async () => {
    installedAgents();
    let projectDir = '';
    model = await startFakeModelServer((request) => claudeScenarioScript(timelineTourScenario(projectDir))(request));
    harness = startClaudeAdapter(model.url);
    projectDir = harness.projectDir;
    fs.writeFileSync(path.join(projectDir, 'notes.txt'), NOTES);
    // TL-5: a project MCP server and the user's own settings, both read by Claude Code itself.
    fs.writeFileSync(
      path.join(projectDir, '.mcp.json'),
      JSON.stringify({ mcpServers: { [MCP_SERVER]: { command: process.execPath, args: [MCP_FIXTURE] } } }),
    );
    fs.writeFileSync(path.join(harness.configDir, 'settings.json'), JSON.stringify(tourUserSettings()));
    ({ sessionId } = harness.newSession());
    context = recordingContext(harness.sessions, {
      sessionId,
      text: MAIN_PROMPT,
      cwd: projectDir,
      settings: { claude: { permissionMode: 'default', model: null } },
    });
    runError = await harness.agent.run(context).then(
      () => null,
      (error: unknown) => error,
    );
    messageUuid = harness.agent.store.claimOperation(
      sessionId,
      context.operationId,
      context.runId,
      context.text,
    ).messageUuid;
  }, AGENT_INSTALL_TIMEOUT_MS);
  afterAll(async () => {
    harness?.close();
    await model?.close();
  });

  it('TL-1 text streams in several deltas and completes in place; the reasoning summary and the TodoWrite plan are rows', () => {
    const texts = context.upserts.filter((item) => item.kind === 'agentText' && item.text.startsWith('Hello'));
    const itemIds = new Set(texts.map((item) => item.itemId));
    expect(itemIds.size).toBe(1);
    const growing = texts
      .filter((item) => item.kind === 'agentText' && item.streaming)
      .map((item) => item.kind === 'agentText' && item.text);
    expect(growing).toEqual(STREAMED_TEXT.map((_, i) => STREAMED_TEXT.slice(0, i + 1).join('')));
    expect(context.items.get([...itemIds][0]!)).toMatchObject({
      kind: 'agentText',
      text: STREAMED_TEXT.join(''),
      streaming: false,
      parentItemId: null,
    });
    expect(ofKind(context.items.values(), 'reasoning')).toEqual([
      expect.objectContaining({ text: 'Let me look around.', streaming: false }),
    ]);
    expect(ofKind(context.items.values(), 'plan')).toEqual([
      expect.objectContaining({
        entries: [
          { text: 'Edit notes.txt', status: 'inProgress' },
          { text: 'Write added.txt', status: 'pending' },
        ],
      }),
    ]);
  });

  it('TL-1 an edit of an existing file and a new file: each diff, applied to the file before, gives the file on disk byte for byte', () => {
    const changes = ofKind(context.items.values(), 'fileChange');
    expect(
      changes.map((c) => [
        c.status,
        c.files.map((f) => [path.basename(f.path), f.change, f.added, f.removed, f.diff.truncated]),
      ]),
    ).toEqual([
      ['completed', [['notes.txt', 'update', 2, 1, false]]],
      ['completed', [['added.txt', 'add', 2, 0, false]]],
    ]);
    const [edit, write] = changes;
    const notes = fs.readFileSync(path.join(harness.projectDir, 'notes.txt'), 'utf8');
    expect(notes).toBe('line 1\nline two\nline two and a half\nline 3\n');
    expect(applyPatch(NOTES, edit!.files[0]!.diff.text)).toBe(notes);
    expect(applyPatch('', write!.files[0]!.diff.text)).toBe(
      fs.readFileSync(path.join(harness.projectDir, 'added.txt'), 'utf8'),
    );
    expect(edit!.files[0]!.diff.text).toMatch(/^--- a\/.*notes\.txt\n\+\+\+ b\/.*notes\.txt\n@@ -1,3 \+1,4 @@\n/);
  });

  it('TL-1 TL-2 TL-5 Read, ToolSearch, a web search and a project MCP tool are tool rows completed in place with their results', () => {
    const items = [...context.items.values()];
    expect(toolCall(items, 'Read')).toMatchObject({
      status: 'completed',
      title: `Read ${path.join(harness.projectDir, 'notes.txt')}`,
      error: null,
    });
    expect(toolCall(items, 'Read').result?.text).toContain('line 2');
    expect(toolCall(items, 'ToolSearch')).toMatchObject({
      status: 'completed',
      result: { text: expect.stringContaining('TodoWrite') },
    });
    const search = toolCall(items, 'WebSearch');
    expect(search).toMatchObject({ status: 'completed', title: 'Search "vitest projects"' });
    expect(search.result?.text).toContain('https://vitest.dev/guide/projects');
    expect(toolCall(items, `mcp:${MCP_SERVER}/lookup_word`)).toMatchObject({
      status: 'completed',
      result: { text: 'The word "timeline" has 8 letters.' },
    });
    // Each running row was completed in place: its first version is running, under the same item id.
    const firstSearch = context.upserts.find((item) => item.itemId === search.itemId);
    expect(firstSearch).toMatchObject({ kind: 'toolCall', status: 'running', result: null });
  });

  it('TL-5 the default permission mode refuses a tool the rules do not allow, and the row says which and why', () => {
    const fetch = toolCall(context.items.values(), 'WebFetch');
    expect(fetch.status).toBe('declined');
    expect(fetch.error).toMatch(/WebFetch/);
  });

  it('TL-1 a Task subagent is a row, its own events carry its id, and Bash stays a command row with a pointer', () => {
    const [subagent] = ofKind(context.items.values(), 'subagent');
    expect(subagent).toMatchObject({
      title: 'Read the notes',
      agentType: 'general-purpose',
      status: 'completed',
      parentItemId: null,
    });
    // TL-8: the report alone, without the frame and ids Claude Code hands the model with it.
    expect(subagent!.result?.text).toBe('The notes have lines.');
    const inside = [...context.items.values()].filter((item) => item.parentItemId === subagent!.itemId);
    // Claude Code streams the subagent's prompt and tool calls; its closing text, which it never
    // streams, is read from the subagent's saved messages once it ended (TL-3).
    expect(inside.map((item) => item.kind).sort()).toEqual(['agentText', 'toolCall', 'userText']);
    expect(inside.find((item) => item.kind === 'agentText')).toMatchObject({ text: 'The notes have lines.' });
    expect(inside.find((item) => item.kind === 'toolCall')).toMatchObject({ tool: 'Read', status: 'completed' });
    expect(context.commands).toEqual([
      expect.objectContaining({
        command: 'echo from-bash',
        result: { status: 'exited', exitCode: 0 },
        pointer: expect.objectContaining({ byteLength: 'from-bash'.length }),
      }),
      // TL-5: a command the default mode refuses says so on its row.
      expect.objectContaining({
        command: 'touch refused.txt',
        result: {
          status: 'failed',
          exitCode: null,
          error: expect.stringMatching(/^Claude Code refused to run this command: ./),
        },
      }),
    ]);
    expect(fs.existsSync(path.join(harness.projectDir, 'refused.txt'))).toBe(false);
    expect(context.commands[0]!.commandId).toBe(context.commands[0]!.pointer.itemId);
    // TL-3: each command's row was made when Claude asked for it, before its result.
    expect(context.started).toEqual(context.commands.map(({ commandId, command }) => ({ commandId, command })));
  });

  it('TL-1 the turn that ends with an API error shows the error and a failed turn end with usage and cost', () => {
    // ACC-3: the run fails with Claude's own words for the error it ended the turn with.
    expect(runError).toMatchObject({
      name: 'AgentRunError',
      message: expect.stringContaining('Scripted failure at the end of the tour'),
    });
    expect(ofKind(context.items.values(), 'agentError')).toEqual([
      expect.objectContaining({ message: expect.stringContaining('Scripted failure at the end of the tour') }),
    ]);
    const [end] = ofKind(context.items.values(), 'turnEnd');
    expect(end).toMatchObject({
      itemId: `turn:${messageUuid}`,
      status: 'failed',
      usage: expect.objectContaining({ inputTokens: expect.any(Number) }),
    });
    expect(end!.durationMs).toBeGreaterThan(0);
    expect(end!.costUsd).toBeGreaterThan(0);
    expect(context.activities).toBeGreaterThan(0);
  });

  it(
    'TL-4 the saved history gives the same item ids as the live run, page by page, and the subagent row opens its own timeline',
    async () => {
      const whole = await harness.agent.historyPage({
        sessionId,
        cwd: harness.projectDir,
        parentItemId: null,
        before: null,
        after: null,
        limit: 1000,
      });
      expect(whole.older).toBeNull();
      expect(whole.newer).toBeNull();
      const saved = whole.entries;
      expect(saved[0]).toMatchObject({ kind: 'user', text: MAIN_PROMPT, clientId: messageUuid });
      const savedItems = new Map(saved.filter((e) => e.kind === 'item').map((e) => [e.item.itemId, e.item]));
      const liveKept = [...context.items.values()].filter((item) => item.parentItemId === null);
      for (const item of liveKept)
        expect(savedItems.get(item.itemId)?.kind, `${item.kind} ${item.itemId} is saved`).toBe(item.kind);
      // TL-6: the turn end, which Claude does not save, is the app's record of the live one, after the turn's last message.
      const [liveEnd] = ofKind(context.items.values(), 'turnEnd');
      expect(saved.at(-1)).toEqual({ kind: 'item', item: liveEnd });
      expect(saved.filter((e) => e.kind === 'command').map((e) => entryId(e))).toEqual(
        context.commands.map((c) => c.commandId),
      );
      // The saved edit keeps only the tool input: its diff still applies to the file as it was.
      const savedEdit = ofKind(savedItems.values(), 'fileChange').find((c) => c.files[0]!.path.endsWith('notes.txt'))!;
      expect(applyPatch(NOTES, savedEdit.files[0]!.diff.text)).toBe(
        fs.readFileSync(path.join(harness.projectDir, 'notes.txt'), 'utf8'),
      );

      // Small pages from the newest back to the first hold the same entries in the same order, each once.
      const paged = await allPages(harness, sessionId, null, 3);
      expect(paged.pages).toBeGreaterThan(3);
      expect(paged.entries.map(entryId)).toEqual(saved.map(entryId));

      const [subagent] = ofKind(context.items.values(), 'subagent');
      const sub = await allPages(harness, sessionId, subagent!.itemId, 2);
      const liveInside = [...context.items.values()].filter((item) => item.parentItemId === subagent!.itemId);
      expect(sub.pages).toBeGreaterThan(1);
      expect(sub.entries.map(entryId)).toEqual(expect.arrayContaining(liveInside.map((item) => item.itemId)));
      expect(sub.entries.map((e) => e.kind === 'item' && [e.item.kind, e.item.parentItemId])).toEqual([
        ['userText', subagent!.itemId],
        ['toolCall', subagent!.itemId],
        ['agentText', subagent!.itemId],
      ]);
      expect(sub.entries[0]).toMatchObject({ kind: 'item', item: { text: SUBAGENT_PROMPT } });
      expect(sub.entries[2]).toMatchObject({ kind: 'item', item: { text: 'The notes have lines.' } });
    },
    AGENT_TEST_TIMEOUT_MS,
  );

  it(
    'TL-1 a long text of a saved item reads back whole through the agent',
    async () => {
      const read = toolCall(context.items.values(), 'Read');
      const slice = await harness.agent.readItemText({
        sessionId,
        cwd: harness.projectDir,
        parentItemId: null,
        itemId: read.itemId,
        field: 'result',
        offset: 0,
        length: 4096,
      });
      expect(slice.bytes.toString('utf8')).toBe(read.result!.text);
      expect(slice.availableBytes).toBe(read.result!.byteLength);
    },
    AGENT_TEST_TIMEOUT_MS,
  );
});
