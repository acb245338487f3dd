import fs from 'node:fs';
import { isDiskFull } from '../errors';
import type { Logger } from '../log';

/** Room kept free on the data folder's disk: enough for SQLite to record a few hundred row changes. */
const RESERVE_BYTES = 4 * 1024 * 1024;
const ZEROS = Buffer.alloc(64 * 1024);

/**
 * A file of reserved space in the data folder. When the disk fills up, the runtime frees it so it
 * can still record what happened (a command's OUT-3 storage error, its end, the run's state)
 * instead of leaving rows that claim to be running. New work is refused with `disk_full` (RPC-3)
 * until the reserve can be put back, that is until the user freed some space.
 */
export class DiskReserve {
  constructor(
    private readonly file: string,
    private readonly log: Logger,
  ) {}

  /** Puts the reserve in place when it is missing; false when the disk has no room for it. */
  ensure(): boolean {
    try {
      if (fs.statSync(this.file).size === RESERVE_BYTES) return true;
    } catch {
      // Missing (released or never made): write it below.
    }
    try {
      const fd = fs.openSync(this.file, 'w', 0o600);
      try {
        for (let done = 0; done < RESERVE_BYTES;)
          done += fs.writeSync(fd, ZEROS, 0, Math.min(ZEROS.length, RESERVE_BYTES - done), done);
        fs.fdatasyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      return true;
    } catch (error) {
      fs.rmSync(this.file, { force: true });
      if (isDiskFull(error)) return false;
      throw error;
    }
  }

  /** Frees the reserved space; true when there was some to free. */
  release(): boolean {
    try {
      fs.rmSync(this.file);
    } catch {
      return false;
    }
    this.log.warn('the disk is full: released the reserved space to record what happened', { file: this.file });
    return true;
  }
}
