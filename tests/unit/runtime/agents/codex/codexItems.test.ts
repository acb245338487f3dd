import { applyPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { codexFileChange, countDiffLines } from '../../../../../server/runtime/agents/codex/codexFileChanges';
import { codexItem, type ItemMapping } from '../../../../../server/runtime/agents/codex/codexItems';
import { itemFieldText } from '../../../../../server/runtime/sessions/itemRows';

const CWD = '/home/user/project';
const saved: ItemMapping = { cwd: CWD, createdAt: 5, parentItemId: null, running: false };

describe('TL-1 Codex thread items as rows', () => {
  it('TL-1 a file change: an updated file gets headers, an added one a diff from nothing, counts from the hunks', () => {
    const before = 'one\ntwo\nthree\n';
    const update = codexFileChange(
      {
        path: `${CWD}/src/a.txt`,
        kind: { type: 'update', move_path: null },
        diff: '@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n',
      },
      CWD,
    );
    expect(update).toMatchObject({
      path: 'src/a.txt',
      change: 'update',
      added: 1,
      removed: 1,
      binary: false,
      movePath: null,
    });
    expect(applyPatch(before, update.diff.text)).toBe('one\nTWO\nthree\n');
    const add = codexFileChange({ path: `${CWD}/new.md`, kind: { type: 'add' }, diff: '# New\nbody\n' }, CWD);
    expect(add.diff.text.startsWith('--- /dev/null\n+++ b/new.md\n@@ -0,0 +1,2 @@\n')).toBe(true);
    expect(applyPatch('', add.diff.text)).toBe('# New\nbody\n');
    expect(add).toMatchObject({ added: 2, removed: 0 });
    const del = codexFileChange({ path: `${CWD}/old.md`, kind: { type: 'delete' }, diff: 'gone\n' }, CWD);
    expect(del).toMatchObject({ change: 'delete', added: 0, removed: 1 });
    const moved = codexFileChange(
      { path: `${CWD}/a.ts`, kind: { type: 'update', move_path: `${CWD}/b.ts` }, diff: '@@ -1 +1 @@\n-x\n+y\n' },
      CWD,
    );
    expect(moved).toMatchObject({ movePath: 'b.ts' });
    expect(moved.diff.text.startsWith('--- a/a.ts\n+++ b/b.ts\n')).toBe(true);
    // A path outside the project stays absolute.
    expect(codexFileChange({ path: '/elsewhere/x', kind: { type: 'add' }, diff: 'x\n' }, CWD).path).toBe(
      '/elsewhere/x',
    );
  });

  it('TL-1 a binary file gets `binary` and no diff text', () => {
    const binary = codexFileChange(
      { path: `${CWD}/logo.png`, kind: { type: 'add' }, diff: '\u0089PNG\r\n\u001a\n\u0000\u0000\u0000\rIHDR' },
      CWD,
    );
    expect(binary).toMatchObject({
      binary: true,
      added: 0,
      removed: 0,
      diff: { text: '', byteLength: 0, truncated: false },
    });
    const git = codexFileChange(
      {
        path: `${CWD}/a.bin`,
        kind: { type: 'update', move_path: null },
        diff: 'Binary files a/a.bin and b/a.bin differ\n',
      },
      CWD,
    );
    expect(git.binary).toBe(true);
  });

  it('TL-1 a long diff is never cut silently: 64 KiB inline, its whole length, and the whole text without the limit', () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `+line ${i}`).join('\n');
    const change = {
      path: `${CWD}/big.txt`,
      kind: { type: 'update' as const, move_path: null },
      diff: `@@ -0,0 +1,20000 @@\n${lines}\n`,
    };
    const row = codexFileChange(change, CWD);
    expect(row.diff.truncated).toBe(true);
    expect(Buffer.byteLength(row.diff.text)).toBeLessThanOrEqual(64 * 1024);
    expect(row.added).toBe(20_000);
    const item = codexItem(
      { type: 'fileChange', id: 'fc', status: 'completed', changes: [change] },
      { ...saved, inlineBytes: Infinity },
    )!;
    const whole = itemFieldText(item, 'files.0.diff')!;
    expect(Buffer.byteLength(whole)).toBe(row.diff.byteLength);
    expect(whole.startsWith(row.diff.text)).toBe(true);
  });

  it('TL-1 counts ignore the ---/+++ headers', () => {
    expect(countDiffLines('--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n+c\n')).toEqual({ added: 2, removed: 1 });
  });

  it('TL-1 tools: MCP results are decoded (TL-2), a web search is titled by its query, an image view by its path', () => {
    const mcp = codexItem(
      {
        type: 'mcpToolCall',
        id: 'm1',
        server: 'docs',
        tool: 'find',
        status: 'completed',
        arguments: { q: 'x' },
        result: { content: [{ type: 'text', text: JSON.stringify({ output: 'found it' }) }], structuredContent: null },
        error: null,
      },
      saved,
    );
    expect(mcp).toMatchObject({
      kind: 'toolCall',
      tool: 'mcp:docs/find',
      status: 'completed',
      result: { text: 'found it' },
      error: null,
    });
    const failed = codexItem(
      {
        type: 'mcpToolCall',
        id: 'm2',
        server: 'docs',
        tool: 'find',
        status: 'failed',
        arguments: {},
        result: null,
        error: { message: 'boom' },
      },
      saved,
    );
    expect(failed).toMatchObject({ status: 'failed', error: 'boom', result: null });
    expect(
      codexItem(
        { type: 'webSearch', id: 'w', query: 'q', action: { type: 'openPage', url: 'https://example.com' } },
        saved,
      ),
    ).toMatchObject({ title: 'Open https://example.com' });
    expect(codexItem({ type: 'imageView', id: 'i', path: '/tmp/a.png' }, { ...saved, running: true })).toMatchObject({
      tool: 'imageView',
      status: 'running',
    });
    const dynamic = codexItem(
      {
        type: 'dynamicToolCall',
        id: 'd',
        namespace: 'ns',
        tool: 't',
        arguments: {},
        status: 'completed',
        contentItems: [{ type: 'inputText', text: 'ok' }],
        success: true,
      },
      saved,
    );
    expect(dynamic).toMatchObject({ tool: 'ns/t', result: { text: 'ok' } });
  });

  it('TL-1 a subagent call is a subagent row; its commands show as tool calls in its own timeline', () => {
    const spawn = codexItem(
      {
        type: 'collabAgentToolCall',
        id: 'c1',
        tool: 'spawnAgent',
        status: 'completed',
        senderThreadId: 't0',
        receiverThreadIds: ['t1'],
        prompt: 'Check the tests',
        agentsStates: { t1: { status: 'completed', message: 'All green' } },
      },
      saved,
    );
    expect(spawn).toMatchObject({
      kind: 'subagent',
      title: 'Check the tests',
      agentType: null,
      status: 'completed',
      result: { text: 'All green' },
    });
    const wait = codexItem(
      {
        type: 'collabAgentToolCall',
        id: 'c2',
        tool: 'wait',
        status: 'inProgress',
        senderThreadId: 't0',
        receiverThreadIds: ['t1'],
        prompt: null,
        agentsStates: {},
      },
      { ...saved, running: true },
    );
    expect(wait).toMatchObject({ kind: 'toolCall', tool: 'collab:wait', title: 'wait', status: 'running' });
    const prompt = {
      type: 'userMessage',
      id: 'u',
      clientId: null,
      content: [{ type: 'text', text: 'Count the files' }],
    };
    expect(codexItem(prompt, saved)).toBeNull();
    expect(codexItem(prompt, { ...saved, parentItemId: 'c1', subagentTimeline: true })).toMatchObject({
      kind: 'userText',
      text: 'Count the files',
    });
    const command = { type: 'commandExecution', id: 'x', command: 'ls', status: 'completed', aggregatedOutput: 'a\n' };
    expect(codexItem(command, saved)).toBeNull();
    expect(codexItem(command, { ...saved, parentItemId: 'c1', subagentTimeline: true })).toMatchObject({
      kind: 'toolCall',
      tool: 'shell',
      parentItemId: 'c1',
      result: { text: 'a\n' },
    });
  });

  it('TL-1 plans, reasoning and compaction', () => {
    expect(codexItem({ type: 'plan', id: 'p', text: '1. a\n2. b' }, saved)).toMatchObject({
      kind: 'plan',
      explanation: '1. a\n2. b',
      entries: [],
    });
    expect(codexItem({ type: 'reasoning', id: 'r', summary: ['a', 'b'], content: [] }, saved)).toMatchObject({
      kind: 'reasoning',
      text: 'a\n\nb',
      streaming: false,
    });
    expect(codexItem({ type: 'contextCompaction', id: 'k' }, saved)).toMatchObject({ kind: 'compaction', text: null });
  });

  it('TL-1 an item type this version does not know, or a known one that fails its schema, becomes a generic row with the raw text', () => {
    const unknown = { type: 'holographicDisplay', id: 'h1', payload: { a: 1 } };
    expect(codexItem(unknown, saved)).toMatchObject({
      kind: 'rawItem',
      itemId: 'h1',
      label: 'Codex holographicDisplay',
      text: { text: JSON.stringify(unknown, null, 2), truncated: false },
    });
    expect(codexItem({ type: 'fileChange', id: 'f', changes: 'not a list' }, saved)).toMatchObject({
      kind: 'rawItem',
      itemId: 'f',
      label: 'Codex fileChange',
    });
    expect(codexItem('not even an object', saved)).toMatchObject({ kind: 'rawItem', label: 'Codex event' });
    const big = codexItem({ type: 'mystery', id: 'm', blob: 'x'.repeat(10 * 1024 * 1024) }, saved);
    expect(big).toMatchObject({ kind: 'rawItem', text: { truncated: true } });
    expect(big!.kind === 'rawItem' && big!.text.byteLength).toBeGreaterThan(10 * 1024 * 1024);
  });
});
