import { describe, expect, it } from 'vitest';
import { frameForThrown } from '../../../server/rpc/rpcErrors';
import { DISK_FULL_MESSAGE, isDiskFull, notFound } from '../../../server/runtime/errors';
import { formatLogLine } from '../../../server/runtime/log';

/** An error as better-sqlite3 or node:fs throws it: a message and a string `code`. */
const coded = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('rendering thrown errors (RPC-3)', () => {
  it('RPC-3 SQLITE_FULL, ENOSPC and EDQUOT become a storage error with data.reason "disk_full"', () => {
    for (const thrown of [
      coded('SQLITE_FULL', 'database or disk is full'),
      coded('ENOSPC', 'no space left on device'),
      coded('EDQUOT', 'quota exceeded'),
    ]) {
      const { frame, internal } = frameForThrown(7, thrown);
      expect(internal).toBe(false);
      expect(frame.error).toEqual({
        code: -32050,
        message: DISK_FULL_MESSAGE,
        data: { code: 'storage', reason: 'disk_full' },
      });
    }
    // Found through the cause too: a wrapper does not hide a full disk.
    expect(isDiskFull(new Error('saving failed', { cause: coded('ENOSPC', 'no space') }))).toBe(true);
  });

  it('RPC-3 other failures stay as they are: typed errors keep their code, the rest is internal', () => {
    expect(frameForThrown(1, notFound('No such session.')).frame.error.data).toEqual({ code: 'not_found' });
    const io = frameForThrown(2, coded('SQLITE_IOERR', 'disk I/O error'));
    expect(io.internal).toBe(true);
    // An internal fault carries an id the desktop's log line carries too; its details stay there.
    expect(io.faultId).toMatch(/^[0-9a-f]{8}$/);
    expect(io.frame.error.data).toEqual({ code: 'unavailable', faultId: io.faultId });
    expect(io.frame.error.message).toContain(`fault ${io.faultId}`);
    expect(io.frame.error.message).not.toContain('disk I/O error');
    expect(isDiskFull('ENOSPC')).toBe(false);
  });

  it('RPC-3 an internal fault is logged with its stack and its cause, under the line that names it', () => {
    const cause = coded('SQLITE_IOERR', 'disk I/O error');
    const thrown = new Error('saving the row failed', { cause });
    const line = formatLogLine(
      'error',
      'request failed',
      { method: 'chat.send', faultId: 'abcd1234' },
      thrown,
      new Date(0),
    );
    const [head, ...stack] = line.trimEnd().split('\n');
    expect(head).toBe('1970-01-01T00:00:00.000Z error request failed method="chat.send" faultId="abcd1234"');
    expect(stack[0]).toBe('    Error: saving the row failed');
    expect(stack.some((l) => l.includes('rpcErrors.test.ts'))).toBe(true);
    expect(stack.some((l) => l.startsWith('    caused by Error: disk I/O error'))).toBe(true);
    // Without an error, one line as before.
    expect(formatLogLine('info', 'started', undefined, undefined, new Date(0))).toBe(
      '1970-01-01T00:00:00.000Z info started\n',
    );
  });
});
