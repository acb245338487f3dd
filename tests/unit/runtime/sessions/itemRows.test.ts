import { describe, expect, it } from 'vitest';
import type { AgentItem } from '../../../../lib/protocol/rows';
import {
  checkedItemRow,
  INLINE_TEXT_BYTES,
  itemFieldText,
  itemRowId,
  utf8Prefix,
  wireItemRow,
} from '../../../../server/runtime/sessions/itemRows';
import { body } from '../../../fixtures/scriptedAgentSessions';

describe('item rows', () => {
  it('TL-1 a prefix never splits a character and is at most the byte budget', () => {
    const text = 'a€'.repeat(10);
    for (let max = 0; max <= Buffer.byteLength(text); max++) {
      const prefix = utf8Prefix(text, max);
      expect(Buffer.byteLength(prefix)).toBeLessThanOrEqual(max);
      expect(text.startsWith(prefix)).toBe(true);
      expect(max - Buffer.byteLength(prefix)).toBeLessThan(4);
    }
  });

  it('TL-1 long texts go on the wire as a 64 KiB prefix that says how long the whole is; short ones unchanged', () => {
    const long = 'x'.repeat(INLINE_TEXT_BYTES + 10);
    const row = wireItemRow(
      {
        kind: 'toolCall',
        itemId: 't',
        parentItemId: 'sub',
        createdAt: 1,
        tool: 'Read',
        title: 'Read a',
        input: body('short'),
        status: 'completed',
        result: body(long),
        error: null,
      },
      's1',
      'r1',
      'live',
    );
    if (row.kind !== 'toolCall') throw new Error(row.kind);
    expect(row.id).toBe(itemRowId('sub', 't'));
    expect(row.input).toEqual(body('short'));
    expect(row.result).toEqual({ text: long.slice(0, INLINE_TEXT_BYTES), byteLength: long.length, truncated: true });
    // An agent's own truncated body keeps the agent's whole length.
    const cut = wireItemRow(
      {
        kind: 'rawItem',
        itemId: 'r',
        parentItemId: null,
        createdAt: 1,
        label: 'x',
        text: { text: long, byteLength: 10 ** 9, truncated: true },
      },
      's1',
      null,
      'saved',
    );
    expect(cut.kind === 'rawItem' && cut.text.byteLength).toBe(10 ** 9);
  });

  it('TL-1 an item that does not match its kind becomes a raw row with a stable id', () => {
    const bad = { kind: 'toolCall', itemId: 'x', tool: 3 };
    const row = checkedItemRow(bad, 's1', null, null, 'saved');
    expect(row).toMatchObject({ kind: 'rawItem', id: 'i:x', label: 'toolCall', source: 'saved' });
    const anonymous = checkedItemRow(['no', 'id'], 's1', null, null, 'saved');
    expect(anonymous.id).toBe(checkedItemRow(['no', 'id'], 's1', null, null, 'saved').id);
    expect(anonymous.id).not.toBe(checkedItemRow(['other'], 's1', null, null, 'saved').id);
  });

  it('TL-1 item texts are found by field name', () => {
    const change: AgentItem = {
      kind: 'fileChange',
      itemId: 'f',
      parentItemId: null,
      createdAt: 1,
      status: 'completed',
      files: [{ path: 'a', change: 'add', movePath: null, diff: body('+a'), added: 1, removed: 0, binary: false }],
    };
    expect(itemFieldText(change, 'files.0.diff')).toBe('+a');
    expect(itemFieldText(change, 'files.1.diff')).toBeNull();
    expect(itemFieldText(change, 'input')).toBeNull();
    expect(
      itemFieldText(
        { kind: 'agentText', itemId: 'a', parentItemId: null, createdAt: 1, text: 'hello', streaming: false },
        'text',
      ),
    ).toBe('hello');
  });
});
