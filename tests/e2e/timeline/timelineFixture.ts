/**
 * Rows of every kind (TL-1) for the timeline's browser tests and benchmarks, with the whole texts
 * behind their truncated bodies and the output of their commands, as a runtime would hold them.
 */
import type {
  AgentItemRow,
  CommandRow,
  FileChange,
  MessageRow,
  Session,
  TextBody,
  TimelineRow,
} from '../../../lib/protocol/rows';

/** Inline prefix of a long item text (TL-1): the rest is read through `sessions.itemText`. */
export const INLINE_TEXT_BYTES = 64 * 1024;

export interface TimelineFixture {
  session: Session;
  /** The session's own timeline, oldest first. */
  rows: TimelineRow[];
  /** Subagent timelines by the subagent row's itemId. */
  subagentRows: Record<string, TimelineRow[]>;
  /** Whole texts behind the bodies: key `itemId field`. */
  texts: Record<string, string>;
  /** Command output by commandId. */
  outputs: Record<string, string>;
}

export const textKey = (itemId: string, field: string) => `${itemId} ${field}`;

const utf8Length = (text: string) => new TextEncoder().encode(text).length;

/** A body as a runtime sends it: the text whole up to 64 KiB, else its first 64 KiB and `truncated` (ASCII texts here). */
function body(fixture: TimelineFixture, itemId: string, field: string, text: string): TextBody {
  const byteLength = utf8Length(text);
  if (byteLength <= INLINE_TEXT_BYTES) return { text, byteLength, truncated: false };
  fixture.texts[textKey(itemId, field)] = text;
  return { text: text.slice(0, INLINE_TEXT_BYTES), byteLength, truncated: true };
}

/** A unified diff of a `lines`-line TypeScript file: every fifth line replaced (one removed, one added line). */
export function typescriptDiff(path: string, lines: number): { diff: string; added: number; removed: number } {
  const out: string[] = [`--- a/${path}`, `+++ b/${path}`];
  let added = 0;
  let removed = 0;
  const hunk: string[] = [];
  let oldCount = 0;
  let newCount = 0;
  for (let i = 1; i <= lines; i++) {
    if (i % 5 === 0) {
      hunk.push(
        `-export const value${i} = computeOld(${i}, 'before');`,
        `+export const value${i}: number = computeNew(${i}, "after");`,
      );
      removed++;
      added++;
      oldCount++;
      newCount++;
    } else {
      hunk.push(` export function line${i}(input: string): string { return input + ${i}; }`);
      oldCount++;
      newCount++;
    }
  }
  out.push(`@@ -1,${oldCount} +1,${newCount} @@`, ...hunk, '');
  return { diff: out.join('\n'), added, removed };
}

function fileChange(
  fixture: TimelineFixture,
  itemId: string,
  index: number,
  path: string,
  lines: number,
  change: FileChange['change'] = 'update',
): FileChange {
  const { diff, added, removed } = typescriptDiff(path, lines);
  return {
    path,
    change,
    movePath: null,
    diff: body(fixture, itemId, `files.${index}.diff`, diff),
    added,
    removed,
    binary: false,
  };
}

/** The base of an agent item row of this session. */
function item(sessionId: string, runId: string | null, itemId: string, parentItemId: string | null, createdAt: number) {
  return {
    id: parentItemId ? `i:${parentItemId}:${itemId}` : `i:${itemId}`,
    sessionId,
    runId,
    itemId,
    parentItemId,
    createdAt,
    source: 'saved' as const,
  };
}

export const SUBAGENT_ITEM_ID = 'task-explore';
export const LONG_RESULT_ITEM_ID = 'tool-long-result';
export const LONG_DIFF_ITEM_ID = 'edit-long';
export const PLAN_ITEM_ID = 'plan-1';
export const RUNNING_RUN_ID = 'run-3';
export const FIXTURE_COMMAND = 'npm test -- --run tests/unit/app.test.ts';

/** A turn with every row kind, one more running and stalled, and a failed one that needs a sign-in. */
export function everyRowKind(options: { longResultBytes?: number; longDiffLines?: number } = {}): TimelineFixture {
  const sessionId = 'session-fixture';
  const t0 = Date.UTC(2026, 11, 1, 9, 0, 0);
  const fixture: TimelineFixture = {
    session: {
      id: sessionId,
      projectId: 'project-fixture',
      agent: 'codex',
      title: 'Fix the failing test',
      createdAt: t0,
    },
    rows: [],
    subagentRows: {},
    texts: {},
    outputs: {},
  };
  const run1 = 'run-1';
  const at = (s: number) => t0 + s * 1000;
  const message = (
    runId: string,
    text: string,
    state: MessageRow['state'],
    s: number,
    extra: Partial<MessageRow> = {},
  ): MessageRow => ({
    kind: 'message',
    id: `m:${runId}`,
    sessionId,
    operationId: `op-${runId}`,
    runId,
    text,
    state,
    createdAt: at(s),
    ...extra,
  });
  const output =
    Array.from({ length: 40 }, (_, i) => `  ✓ tests/unit/app.test.ts > case ${i + 1} (${i + 2} ms)`).join('\n') +
    '\n\n Test Files  1 passed (1)\n      Tests  40 passed (40)\n';
  fixture.outputs['cmd-1'] = output;
  const command: CommandRow = {
    kind: 'command',
    id: 'c:cmd-1',
    sessionId,
    runId: run1,
    commandId: 'cmd-1',
    command: FIXTURE_COMMAND,
    status: 'exited',
    exitCode: 0,
    byteLength: utf8Length(output),
    generation: 1,
    complete: true,
    sourceIncomplete: false,
    outputSource: 'artifact',
    startedAt: at(20),
    endedAt: at(23),
  };
  const longResult = Array.from(
    { length: Math.ceil((options.longResultBytes ?? 10 * 1024 * 1024) / 64) /* 64 bytes a line */ },
    (_, i) => `match ${String(i + 1).padStart(8, '0')}: src/generated/table.ts ${'x'.repeat(24)}`,
  ).join('\n');
  const rows: AgentItemRow[] = [
    {
      ...item(sessionId, null, 'user-earlier', null, at(0)),
      kind: 'userText',
      text: 'Earlier, from the terminal: look at the flaky test in tests/unit/app.test.ts',
    },
    {
      ...item(sessionId, run1, 'reason-1', null, at(11)),
      kind: 'reasoning',
      streaming: false,
      text: 'The test compares timestamps.\nIt fails when the clock ticks between the two reads, so the fix is to read the clock once.',
    },
    {
      ...item(sessionId, run1, PLAN_ITEM_ID, null, at(12)),
      kind: 'plan',
      explanation: 'Three steps to a stable test.',
      entries: [
        { text: 'Find where the clock is read twice', status: 'completed' },
        { text: 'Read it once and pass it down', status: 'inProgress' },
        { text: 'Run the unit tests', status: 'pending' },
      ],
    },
    {
      ...item(sessionId, run1, 'read-1', null, at(13)),
      kind: 'toolCall',
      tool: 'Read',
      title: 'Read src/app.ts',
      status: 'completed',
      input: body(fixture, 'read-1', 'input', '{"file_path":"src/app.ts"}'),
      result: body(
        fixture,
        'read-1',
        'result',
        'export function stamp() {\n  return { start: Date.now(), end: Date.now() };\n}\n',
      ),
      error: null,
    },
    {
      ...item(sessionId, run1, LONG_RESULT_ITEM_ID, null, at(14)),
      kind: 'toolCall',
      tool: 'Grep',
      title: 'Search "value" in src/generated',
      status: 'completed',
      input: body(fixture, LONG_RESULT_ITEM_ID, 'input', '{"pattern":"value"}'),
      result: body(fixture, LONG_RESULT_ITEM_ID, 'result', longResult),
      error: null,
    },
    {
      ...item(sessionId, run1, 'mcp-1', null, at(15)),
      kind: 'toolCall',
      tool: 'mcp:docs/search',
      title: 'Search the docs for "fake timers"',
      status: 'failed',
      input: body(fixture, 'mcp-1', 'input', '{"q":"fake timers"}'),
      result: null,
      error: 'The docs server is not running.',
    },
    {
      ...item(sessionId, run1, SUBAGENT_ITEM_ID, null, at(16)),
      kind: 'subagent',
      title: 'Explore how the clock is used',
      agentType: 'Explore',
      status: 'completed',
      result: body(fixture, SUBAGENT_ITEM_ID, 'result', 'Date.now() is read in 3 places; only stamp() reads it twice.'),
    },
    {
      ...item(sessionId, run1, 'edit-1', null, at(18)),
      kind: 'fileChange',
      status: 'completed',
      files: [
        fileChange(fixture, 'edit-1', 0, 'src/app.ts', 12),
        {
          path: 'assets/logo.png',
          change: 'add',
          movePath: null,
          diff: { text: '', byteLength: 0, truncated: false },
          added: 0,
          removed: 0,
          binary: true,
        },
      ],
    },
    {
      ...item(sessionId, run1, LONG_DIFF_ITEM_ID, null, at(19)),
      kind: 'fileChange',
      status: 'completed',
      files: [fileChange(fixture, LONG_DIFF_ITEM_ID, 0, 'src/generated/table.ts', options.longDiffLines ?? 5000)],
    },
    {
      ...item(sessionId, run1, 'agent-1', null, at(24)),
      kind: 'agentText',
      streaming: false,
      text: 'Fixed: `stamp()` now reads the clock **once**.\n\n```ts\nconst now = Date.now();\nreturn { start: now, end: now };\n```\n\n| file | change |\n| --- | --- |\n| src/app.ts | clock read once |\n\n<b data-raw-html>raw html stays text</b>',
    },
    {
      ...item(sessionId, run1, 'compact-1', null, at(25)),
      kind: 'compaction',
      text: 'Summarized 48 earlier messages.',
    },
    {
      ...item(sessionId, run1, 'error-1', null, at(26)),
      kind: 'agentError',
      message: 'Rate limited: retrying in 20 s.',
      detail: body(fixture, 'error-1', 'detail', 'HTTP 429 Too Many Requests\nretry-after: 20'),
    },
    {
      ...item(sessionId, run1, 'raw-1', null, at(27)),
      kind: 'rawItem',
      label: 'codex/event/unknown_kind',
      text: body(fixture, 'raw-1', 'text', '{"type":"unknown_kind","payload":{"a":1,"b":[1,2,3]}}'),
    },
    {
      ...item(sessionId, run1, 'turn-1', null, at(28)),
      kind: 'turnEnd',
      status: 'completed',
      durationMs: 18_400,
      usage: { inputTokens: 12_480, outputTokens: 1_932, cachedInputTokens: 9_216, reasoningTokens: 640 },
      costUsd: 0.0412,
      error: null,
    },
  ];
  fixture.rows = [
    rows[0]!,
    message(run1, 'Fix the flaky test in tests/unit/app.test.ts', 'done', 10),
    ...rows.slice(1, 9),
    command,
    ...rows.slice(9),
    message('run-2', 'Commit it', 'failed', 30, {
      failure: { code: 'agent_signed_out', message: 'Codex is signed out on this computer.', action: 'codexSignIn' },
    }),
    message(RUNNING_RUN_ID, 'Now update the changelog', 'running', 40, { stalledSince: Date.now() - 4 * 60_000 }),
  ];
  fixture.subagentRows[SUBAGENT_ITEM_ID] = [
    {
      ...item(sessionId, run1, 'sub-read', SUBAGENT_ITEM_ID, at(16)),
      kind: 'toolCall',
      tool: 'Grep',
      title: 'Search "Date.now" in src',
      status: 'completed',
      input: body(fixture, 'sub-read', 'input', '{"pattern":"Date.now"}'),
      result: body(fixture, 'sub-read', 'result', 'src/app.ts:2\nsrc/app.ts:2\nsrc/log.ts:7'),
      error: null,
    },
    {
      ...item(sessionId, run1, 'sub-text', SUBAGENT_ITEM_ID, at(17)),
      kind: 'agentText',
      streaming: false,
      text: 'Date.now() is read in **3** places; only `stamp()` reads it twice.',
    },
  ];
  return fixture;
}

/** `count` rows of the common kinds, oldest first, for scrolling back through a long timeline. */
export function manyRows(count: number): TimelineFixture {
  const base = everyRowKind({ longResultBytes: 200_000, longDiffLines: 300 });
  const kinds = base.rows.filter((row) => row.kind !== 'message');
  const rows: TimelineRow[] = [];
  for (let i = 0; i < count; i++) {
    const template = kinds[i % kinds.length]!;
    rows.push(
      template.kind === 'command'
        ? { ...template, id: `c:${i}` }
        : { ...template, id: `r:${i}`, createdAt: template.createdAt + i },
    );
  }
  return { ...base, rows };
}

/** One file change row with a `lines`-line diff, its body cut at 64 KiB as a runtime sends it. */
export function diffRow(lines: number): TimelineRow {
  const fixture: TimelineFixture = {
    session: everyRowKind({ longResultBytes: 1 }).session,
    rows: [],
    subagentRows: {},
    texts: {},
    outputs: {},
  };
  return {
    ...item(fixture.session.id, 'run-bench', `edit-${lines}`, null, 0),
    kind: 'fileChange',
    status: 'completed',
    files: [fileChange(fixture, `edit-${lines}`, 0, 'src/generated/table.ts', lines)],
  };
}
