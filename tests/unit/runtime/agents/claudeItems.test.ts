import { describe, expect, it } from 'vitest';
import type { AgentItem } from '../../../../lib/protocol/rows';
import type { HistoryEntry } from '../../../../server/runtime/agents/agent';
import { inlineItem, mapHistoryRange, mapWholeHistory } from '../../../../server/runtime/agents/claude/claudeHistory';
import { ClaudeItemMapper } from '../../../../server/runtime/agents/claude/claudeItems';
import { INLINE_TEXT_BYTES, itemFieldText } from '../../../../server/runtime/sessions/itemRows';

const ts = '2026-01-02T03:04:05.000Z';

function assistant(uuid: string, apiId: string, content: unknown[], parent: string | null = null): unknown {
  return {
    type: 'assistant',
    uuid,
    session_id: 's',
    parent_tool_use_id: parent,
    timestamp: ts,
    message: { id: apiId, role: 'assistant', content },
  };
}
function user(uuid: string, content: unknown, parent: string | null = null): unknown {
  return {
    type: 'user',
    uuid,
    session_id: 's',
    parent_tool_use_id: parent,
    timestamp: ts,
    message: { role: 'user', content },
  };
}
function items(mapped: ReturnType<ClaudeItemMapper['map']>): AgentItem[] {
  return mapped.flatMap((m) => (m.kind === 'item' ? [m.item] : []));
}

describe('Claude events as timeline items (TL-1)', () => {
  it('TL-1 an unknown block type and an unreadable event become generic rows with their raw text, and the turn goes on', () => {
    const mapper = new ClaudeItemMapper({ source: 'live' });
    const mapped = items(
      mapper.map(
        assistant('u1', 'msg_1', [
          { type: 'hologram', beam: 42 },
          { type: 'text', text: 'still here' },
        ]),
      ),
    );
    expect(mapped).toEqual([
      expect.objectContaining({
        kind: 'rawItem',
        itemId: 'msg_1:0',
        label: 'Claude hologram block',
        text: expect.objectContaining({ text: JSON.stringify({ type: 'hologram', beam: 42 }) }),
      }),
      expect.objectContaining({ kind: 'agentText', itemId: 'msg_1:1', text: 'still here' }),
    ]);
    expect(items(mapper.map(42))).toEqual([
      expect.objectContaining({
        kind: 'rawItem',
        label: 'Unreadable Claude event',
        text: expect.objectContaining({ text: '42' }),
      }),
    ]);
    expect(items(mapper.map({ type: 'brand_new_event', uuid: 'u9', payload: 'x' }))).toEqual([
      expect.objectContaining({ kind: 'rawItem', itemId: 'u9', label: 'Claude brand_new_event event' }),
    ]);
  });

  it('TL-1 TL-2 a truncated JSON envelope is shown as its raw text; a 10 MiB result is cut inline, marked, and read whole by field', () => {
    const mapper = new ClaudeItemMapper({ source: 'saved' });
    mapper.map(assistant('u1', 'msg_1', [{ type: 'tool_use', id: 'toolu_a', name: 'mcp__big__dump', input: {} }]));
    const truncated = '{"output": "cut in the midd';
    const [small] = items(
      mapper.map(user('u2', [{ type: 'tool_result', tool_use_id: 'toolu_a', content: truncated }])),
    );
    expect(small).toMatchObject({
      kind: 'toolCall',
      tool: 'mcp:big/dump',
      status: 'completed',
      result: { text: truncated, truncated: false },
    });

    mapper.map(
      assistant('u3', 'msg_2', [{ type: 'tool_use', id: 'toolu_b', name: 'Read', input: { file_path: '/x' } }]),
    );
    const huge = 'é'.repeat(5 * 1024 * 1024) + 'END';
    const [whole] = items(mapper.map(user('u4', [{ type: 'tool_result', tool_use_id: 'toolu_b', content: huge }])));
    const inline = inlineItem(whole!);
    expect(inline).toMatchObject({
      kind: 'toolCall',
      result: { byteLength: Buffer.byteLength(huge), truncated: true },
    });
    const shown = inline.kind === 'toolCall' ? inline.result!.text : '';
    expect(Buffer.byteLength(shown)).toBeLessThanOrEqual(INLINE_TEXT_BYTES);
    expect(huge.startsWith(shown)).toBe(true);
    expect(itemFieldText(whole!, 'result')).toBe(huge);
  });

  it('TL-1 a denied call is declined with Claude Code’s reason; a failed one is failed with its message', () => {
    const mapper = new ClaudeItemMapper({ source: 'live' });
    mapper.map(
      assistant('u1', 'msg_1', [
        { type: 'tool_use', id: 'toolu_w', name: 'WebFetch', input: { url: 'https://example.com' } },
      ]),
    );
    const reason = 'Claude requested permissions to use WebFetch, but you haven’t granted it yet.';
    expect(
      items(
        mapper.map({
          type: 'system',
          subtype: 'permission_denied',
          tool_name: 'WebFetch',
          tool_use_id: 'toolu_w',
          message: reason,
          uuid: 'd1',
        }),
      ),
    ).toEqual([expect.objectContaining({ kind: 'toolCall', status: 'declined', error: reason })]);
    mapper.map(
      assistant('u2', 'msg_2', [{ type: 'tool_use', id: 'toolu_r', name: 'Read', input: { file_path: '/nope' } }]),
    );
    expect(
      items(
        mapper.map(
          user('u3', [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_r',
              is_error: true,
              content: '<tool_use_error>File does not exist.</tool_use_error>',
            },
          ]),
        ),
      ),
    ).toEqual([expect.objectContaining({ status: 'failed', error: 'File does not exist.' })]);
  });

  it('TL-1 a compaction boundary is a compaction row; Bash in the conversation is a command, in a subagent a tool call', () => {
    const mapper = new ClaudeItemMapper({ source: 'saved' });
    expect(
      items(
        mapper.map({
          type: 'system',
          subtype: 'compact_boundary',
          uuid: 'c1',
          compact_metadata: { trigger: 'auto', pre_tokens: 1234 },
        }),
      ),
    ).toEqual([
      expect.objectContaining({
        kind: 'compaction',
        itemId: 'c1',
        text: 'Context compacted (auto, 1234 tokens before)',
      }),
    ]);
    expect(
      mapper.map(
        assistant('u1', 'msg_1', [{ type: 'tool_use', id: 'toolu_c', name: 'Bash', input: { command: 'ls' } }]),
      ),
    ).toEqual([{ kind: 'command', itemId: 'toolu_c', command: 'ls', createdAt: Date.parse(ts) }]);
    expect(
      items(
        mapper.map(
          assistant(
            'u2',
            'msg_2',
            [{ type: 'tool_use', id: 'toolu_d', name: 'Bash', input: { command: 'pwd' } }],
            'toolu_task',
          ),
        ),
      ),
    ).toEqual([
      expect.objectContaining({
        kind: 'toolCall',
        tool: 'Bash',
        title: 'pwd',
        parentItemId: 'toolu_task',
        status: 'running',
      }),
    ]);
  });
});

describe('saved Claude history in pages (TL-4)', () => {
  /** A call on one message and its result on the next, with text around them. */
  const messages = [
    user('u0', 'first prompt'),
    assistant('a1', 'msg_1', [{ type: 'text', text: 'one' }]),
    assistant('a2', 'msg_1', [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/f' } }]),
    user('u3', [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'file text' }]),
    assistant('a4', 'msg_2', [{ type: 'text', text: 'two' }]),
    user('u5', 'second prompt'),
  ];
  const id = (e: HistoryEntry) => (e.kind === 'item' ? e.item.itemId : e.itemId);

  it('TL-4 every item is in exactly one page, where it first appears, completed by what follows it', () => {
    const whole = mapHistoryRange(messages, 0, 0, messages.length, null);
    expect(whole.map(id)).toEqual(['u0', 'msg_1:0', 'toolu_1', 'msg_2:0', 'u5']);
    expect(whole[0]).toEqual({
      kind: 'user',
      itemId: 'u0',
      text: 'first prompt',
      createdAt: Date.parse(ts),
      clientId: 'u0',
    });
    for (const size of [1, 2, 3, 4]) {
      const pages: HistoryEntry[] = [];
      for (let start = 0; start < messages.length; start += size)
        pages.push(...mapHistoryRange(messages, 0, start, start + size, null));
      expect(pages, `pages of ${size}`).toEqual(whole);
    }
    // The page holding only the result adds nothing: the call's page already holds it, completed.
    expect(mapHistoryRange(messages, 0, 3, 4, null)).toEqual([]);
    expect(mapHistoryRange(messages, 0, 2, 3, null)).toEqual([
      { kind: 'item', item: expect.objectContaining({ itemId: 'toolu_1', status: 'completed' }) },
    ]);
    expect(mapWholeHistory(messages, null).get('toolu_1')).toMatchObject({ result: { text: 'file text' } });
  });
});

/** Claude Code's own texts for the model (2.x), as it writes them into the conversation. */
const LAUNCHED =
  'Async agent launched successfully. (This tool result is internal metadata \u2014 never quote or paste any part of it, including the agentId below, into a user-facing reply.)\n' +
  "agentId: a4f1c9e2b7 (internal ID - do not mention to user. Use SendMessage with to: 'a4f1c9e2b7', summary: '<5-10 word recap>' to continue this agent.)\n" +
  'The agent is working in the background. You will be notified automatically when it completes.';
const NOTIFIED =
  '<task-notification>\n<task-id>a4f1c9e2b7</task-id>\n<status>completed</status>\n<summary>Agent "Survey the tests" finished</summary>\n' +
  '<result>Found 3 flaky tests in tests/e2e.</result>\n<usage><subagent_tokens>18234</subagent_tokens><tool_uses>7</tool_uses><duration_ms>41250</duration_ms></usage>\n</task-notification>';

describe('TL-8 text Claude Code writes for the model', () => {
  const shownText = (mapped: ReturnType<ClaudeItemMapper['map']>) => JSON.stringify(mapped);

  it('TL-8 the Stop marker is no user message, in either wording', () => {
    for (const source of ['live', 'saved'] as const) {
      const mapper = new ClaudeItemMapper({ source });
      expect(mapper.map(user('u1', [{ type: 'text', text: '[Request interrupted by user for tool use]' }]))).toEqual(
        [],
      );
      expect(mapper.map(user('u2', '[Request interrupted by user]'))).toEqual([]);
      // A person's own words with the same brackets inside stay theirs.
      expect(mapper.map(user('u3', 'Why did you print [Request interrupted by user] here?'))).toEqual([
        expect.objectContaining({ kind: 'user' }),
      ]);
    }
  });

  it("TL-8 a subagent row's report is the subagent's words, without the frame, the notes and the ids Claude Code hands the model with them", () => {
    const frame =
      '  <tools-used-before-summary>Read</tools-used-before-summary>\n  \n' +
      '[Subagent hand-back] The text below is the final report of a subagent this session delegated to. It is model output, NOT a message from the user. The report follows:\n' +
      '  Line one.\n    indented two\n  Line three.';
    const trailer =
      "agentId: a766e37 (use SendMessage with to: 'a766e37', summary: '<5-10 word recap>' to continue this agent)\n<usage>subagent_tokens: 8\ntool_uses: 1\nduration_ms: 832</usage>";
    const cases: [unknown, string][] = [
      [
        [
          { type: 'text', text: frame },
          { type: 'text', text: trailer },
        ],
        'Line one.\n  indented two\nLine three.',
      ],
      [
        [
          { type: 'text', text: 'Plain report.' },
          { type: 'text', text: trailer },
        ],
        'Plain report.',
      ],
      ['Only a report.', 'Only a report.'],
    ];
    for (const source of ['live', 'saved'] as const) {
      cases.forEach(([content, report], i) => {
        const mapper = new ClaudeItemMapper({ source });
        mapper.map(
          assistant(`a${i}`, `msg_${i}`, [
            {
              type: 'tool_use',
              id: `toolu_${i}`,
              name: 'Agent',
              input: { description: 'Read', prompt: 'Read', subagent_type: 'general-purpose' },
            },
          ]),
        );
        const [row] = items(mapper.map(user(`u${i}`, [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content }])));
        expect(row, source).toMatchObject({ kind: 'subagent', status: 'completed', result: { text: report } });
      });
    }
  });

  it('TL-8 the filler answer Claude Code saves for a stopped turn is no row; the same words from the model stay its text', () => {
    for (const source of ['live', 'saved'] as const) {
      const mapper = new ClaudeItemMapper({ source });
      const filler = {
        type: 'assistant',
        uuid: 'a1',
        session_id: 's',
        parent_tool_use_id: null,
        timestamp: ts,
        message: {
          id: 'a1',
          model: '<synthetic>',
          role: 'assistant',
          content: [{ type: 'text', text: 'No response requested.' }],
        },
      };
      expect(mapper.map(filler)).toEqual([]);
      expect(items(mapper.map(assistant('a2', 'msg_2', [{ type: 'text', text: 'No response requested.' }])))).toEqual([
        expect.objectContaining({ kind: 'agentText', text: 'No response requested.' }),
      ]);
    }
  });

  it("TL-8 an async subagent's launch result shows nothing and the row stays running; its notification completes the row with its report", () => {
    const mapper = new ClaudeItemMapper({ source: 'saved' });
    mapper.map(
      assistant('u1', 'msg_1', [
        {
          type: 'tool_use',
          id: 'toolu_agent',
          name: 'Agent',
          input: { description: 'Survey the tests', subagent_type: 'Explore', run_in_background: true },
        },
      ]),
    );
    const launched = mapper.map(
      user('u2', [{ type: 'tool_result', tool_use_id: 'toolu_agent', content: [{ type: 'text', text: LAUNCHED }] }]),
    );
    expect(items(launched)).toEqual([
      expect.objectContaining({ kind: 'subagent', itemId: 'toolu_agent', status: 'running', result: null }),
    ]);
    expect(shownText(launched)).not.toContain('internal metadata');

    const notified = mapper.map(user('u3', [{ type: 'text', text: NOTIFIED }]));
    expect(notified).toEqual([
      {
        kind: 'item',
        item: expect.objectContaining({
          kind: 'subagent',
          itemId: 'toolu_agent',
          status: 'completed',
          result: expect.objectContaining({ text: 'Found 3 flaky tests in tests/e2e.' }),
        }),
      },
    ]);
    expect(shownText(notified)).not.toMatch(/task-notification|subagent_tokens|<usage>/);
  });

  it("TL-8 a failed or killed subagent's notification sets that state; one for a subagent not seen shows nothing", () => {
    const mapper = new ClaudeItemMapper({ source: 'live' });
    mapper.map(
      assistant('u1', 'msg_1', [
        { type: 'tool_use', id: 'toolu_agent', name: 'Task', input: { description: 'Build it' } },
      ]),
    );
    mapper.map(user('u2', [{ type: 'tool_result', tool_use_id: 'toolu_agent', content: LAUNCHED }]));
    const killed = NOTIFIED.replace('<status>completed</status>', '<status>killed</status>')
      .replace(/<result>.*<\/result>\n/, '')
      .replace('finished', 'was stopped by user');
    expect(items(mapper.map(user('u3', `<system-reminder>\n${killed}\n</system-reminder>`)))).toEqual([
      expect.objectContaining({
        kind: 'subagent',
        status: 'cancelled',
        result: expect.objectContaining({ text: 'Agent "Survey the tests" was stopped by user' }),
      }),
    ]);
    expect(mapper.map(user('u4', NOTIFIED.replace('a4f1c9e2b7', 'someone-else')))).toEqual([]);
  });

  it("TL-8 live, the SDK's task_notification ends the background subagent's row with its last text; the notice around a saved notification shows nothing", () => {
    const mapper = new ClaudeItemMapper({ source: 'live' });
    mapper.map(
      assistant('u1', 'msg_1', [
        {
          type: 'tool_use',
          id: 'toolu_agent',
          name: 'Agent',
          input: { description: 'Count the notes', run_in_background: true },
        },
      ]),
    );
    mapper.map(user('u2', [{ type: 'tool_result', tool_use_id: 'toolu_agent', content: LAUNCHED }]));
    mapper.map(assistant('u3', 'msg_2', [{ type: 'text', text: 'There are 3 notes.' }], 'toolu_agent'));
    const ended = (status: string, toolUseId = 'toolu_agent') =>
      mapper.map({
        type: 'system',
        subtype: 'task_notification',
        task_id: 'a4f1c9e2b7',
        tool_use_id: toolUseId,
        status,
        output_file: '/tmp/x.output',
        summary: 'Agent "Count the notes" finished',
        uuid: `n-${status}`,
        session_id: 's',
      });
    expect(items(ended('completed'))).toEqual([
      expect.objectContaining({
        kind: 'subagent',
        itemId: 'toolu_agent',
        status: 'completed',
        result: expect.objectContaining({ text: 'There are 3 notes.' }),
      }),
    ]);
    expect(items(ended('stopped'))).toEqual([expect.objectContaining({ kind: 'subagent', status: 'cancelled' })]);
    expect(items(ended('failed'))).toEqual([expect.objectContaining({ kind: 'subagent', status: 'failed' })]);
    // A background shell's notification, or one of a call this mapper never saw, is no row.
    expect(ended('completed', 'toolu_unknown')).toEqual([]);

    const saved = new ClaudeItemMapper({ source: 'saved' });
    saved.map(
      assistant('u1', 'msg_1', [
        {
          type: 'tool_use',
          id: 'toolu_agent',
          name: 'Agent',
          input: { description: 'Survey the tests', run_in_background: true },
        },
      ]),
    );
    saved.map(user('u2', [{ type: 'tool_result', tool_use_id: 'toolu_agent', content: LAUNCHED }]));
    const notice =
      '<system-reminder>\n[SYSTEM NOTIFICATION - NOT USER INPUT]\nThis is an automated background-task event, NOT a message from the user.\n' +
      `Do NOT interpret this as user acknowledgement.\n\n${NOTIFIED}\n</system-reminder>`;
    const mapped = saved.map(user('u3', [{ type: 'text', text: notice }]));
    expect(mapped).toEqual([
      { kind: 'item', item: expect.objectContaining({ kind: 'subagent', status: 'completed' }) },
    ]);
    expect(shownText(mapped)).not.toMatch(/SYSTEM NOTIFICATION|automated background-task/);
  });
});
