import { describe, expect, it } from 'vitest';
import { timelineEntries } from '../../../components/timeline/shellCards';
import { endOfLines, linesAfter } from '../../../components/timeline/textPages';
import type { CommandRow, MessageRow, TimelineRow } from '../../../lib/protocol/rows';

const message = (runId: string, text: string): MessageRow => ({
  kind: 'message',
  id: `m:${runId}`,
  sessionId: 's',
  operationId: `op-${runId}`,
  runId,
  text,
  state: 'done',
  createdAt: 1,
});
const command = (runId: string, text: string): CommandRow => ({
  kind: 'command',
  id: `c:${runId}`,
  sessionId: 's',
  runId,
  commandId: `cmd-${runId}`,
  command: text,
  status: 'exited',
  exitCode: 0,
  byteLength: 3,
  generation: 1,
  complete: true,
  sourceIncomplete: false,
  startedAt: 1,
  endedAt: 2,
});

describe('SES-3 a shell command shows as one card', () => {
  const rows: TimelineRow[] = [
    message('r1', 'ls'),
    command('r1', 'ls'),
    message('r2', 'pwd'),
    command('r0', 'echo older'),
  ];

  it('folds each command into the message of its run in a shell session', () => {
    expect(timelineEntries(rows, true).map((e) => [e.key, e.command?.id ?? null])).toEqual([
      ['m:r1', 'c:r1'],
      ['m:r2', null],
      ['c:r0', null],
    ]);
  });

  it('keeps every row as it is in an agent session', () => {
    expect(timelineEntries(rows, false).map((e) => e.key)).toEqual(['m:r1', 'c:r1', 'm:r2', 'c:r0']);
  });
});

describe('TL-1 long texts are shown a page at a time, never cut silently', () => {
  it('ends a page after its lines, or after 400 characters a line for one long line', () => {
    expect(endOfLines('a\nb\nc\nd', 2)).toBe(4);
    expect(endOfLines('a\nb', 5)).toBe(3);
    expect(endOfLines('x'.repeat(10_000), 3)).toBe(1200);
  });

  it('counts the lines left after a page', () => {
    const text = 'a\nb\nc\nd\n';
    expect(linesAfter(text, endOfLines(text, 1))).toBe(3);
    expect(linesAfter(text, text.length)).toBe(0);
    expect(linesAfter('x'.repeat(10_000), 1200)).toBe(1);
  });
});
