import { describe, expect, it } from 'vitest';
import { arrowKey, withCtrl } from '../../../lib/client/terminalKeys';
import { replayStarts, TERMINAL_REPLAY_BYTES } from '../../../lib/client/terminalReplay';

const KIB = 1024;

describe('TERM-6 the phone key row', () => {
  it('TERM-6 the sticky Ctrl turns the next key into its control character', () => {
    expect(withCtrl('c')).toBe('\x03');
    expect(withCtrl('C')).toBe('\x03');
    expect(withCtrl('d')).toBe('\x04');
    expect(withCtrl('[')).toBe('\x1b');
    expect(withCtrl('@')).toBe('\x00');
    expect(withCtrl('?')).toBe('\x7f');
    // Keys without a control form, and pastes, go as typed.
    expect(withCtrl('1')).toBe('1');
    expect(withCtrl('ls')).toBe('ls');
  });

  it('TERM-6 arrows follow the cursor-key mode the program asked for', () => {
    expect(arrowKey('up', false)).toBe('\x1b[A');
    expect(arrowKey('left', false)).toBe('\x1b[D');
    expect(arrowKey('down', true)).toBe('\x1bOB');
    expect(arrowKey('right', true)).toBe('\x1bOC');
  });
});

describe('TERM-3 the replay of a terminal on open', () => {
  it('TERM-3 the last 1 MiB across the latest shells, each start on a 256 KiB page', () => {
    expect(TERMINAL_REPLAY_BYTES).toBe(1024 * KIB);
    // One small shell: all of it.
    expect(replayStarts([{ byteLength: 5000 }])).toEqual([0]);
    // One long shell: from the page boundary at or before 1 MiB from its end.
    expect(replayStarts([{ byteLength: 3000 * KIB }])).toEqual([1792 * KIB]);
    // An old shell gets what the newest leaves over; older ones are not read.
    expect(replayStarts([{ byteLength: 400 * KIB }, { byteLength: 600 * KIB }, { byteLength: 900 * KIB }])).toEqual([
      null,
      256 * KIB,
      0,
    ]);
    expect(replayStarts([])).toEqual([]);
  });
});
