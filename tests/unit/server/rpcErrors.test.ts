import { describe, expect, it } from 'vitest';
import { frameForThrown } from '../../../server/rpc/rpcErrors';
import { DISK_FULL_MESSAGE, isDiskFull, notFound } from '../../../server/runtime/errors';

/** An error as better-sqlite3 or node:fs throws it: a message and a string `code`. */
const coded = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('rendering thrown errors (RPC-3)', () => {
  it('RPC-3 SQLITE_FULL, ENOSPC and EDQUOT become a storage error with data.reason "disk_full"', () => {
    for (const thrown of [coded('SQLITE_FULL', 'database or disk is full'), coded('ENOSPC', 'no space left on device'), coded('EDQUOT', 'quota exceeded')]) {
      const { frame, internal } = frameForThrown(7, thrown);
      expect(internal).toBe(false);
      expect(frame.error).toEqual({ code: -32050, message: DISK_FULL_MESSAGE, data: { code: 'storage', reason: 'disk_full' } });
    }
    // Found through the cause too: a wrapper does not hide a full disk.
    expect(isDiskFull(new Error('saving failed', { cause: coded('ENOSPC', 'no space') }))).toBe(true);
  });

  it('RPC-3 other failures stay as they are: typed errors keep their code, the rest is internal', () => {
    expect(frameForThrown(1, notFound('No such session.')).frame.error.data).toEqual({ code: 'not_found' });
    const io = frameForThrown(2, coded('SQLITE_IOERR', 'disk I/O error'));
    expect(io.internal).toBe(true);
    expect(io.frame.error.data).toEqual({ code: 'unavailable' });
    expect(isDiskFull('ENOSPC')).toBe(false);
  });
});
