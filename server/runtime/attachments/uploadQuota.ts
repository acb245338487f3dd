import fs from 'node:fs';
import type { UploadCatalog } from './uploadCatalog';
import { uploadErrors } from './uploadErrors';

const GIB = 1024 * 1024 * 1024;

/** ATT-3: how much attachments may take, and when an unfinished upload counts as abandoned. */
export interface UploadQuotaOptions {
  /** Bytes of attachments one device may keep (finished, and promised to unfinished uploads). */
  perDeviceBytes: number;
  /** Bytes of attachments all devices together may keep. */
  totalBytes: number;
  /** Free space an upload may never take: the disk keeps at least this much for everything else. */
  headroomBytes: number;
  /** An unfinished upload with no chunk for this long is abandoned: its bytes and its row go. */
  expiryMs: number;
}

export const DEFAULT_UPLOAD_QUOTA: UploadQuotaOptions = {
  perDeviceBytes: 8 * GIB,
  totalBytes: 32 * GIB,
  headroomBytes: 2 * GIB,
  expiryMs: 24 * 60 * 60 * 1000,
};

/** Bytes free to this user on the file system that holds `dir` (statfs). */
export function freeDiskBytes(dir: string): number {
  const stats = fs.statfsSync(dir);
  return stats.bavail * stats.bsize;
}

/**
 * The checks `attachments.begin` makes before it promises room to a new upload (ATT-3): the
 * device's quota, the total quota, and the free disk less the headroom and less what unfinished
 * uploads were already promised. Each refusal carries the numbers.
 */
export class UploadQuota {
  constructor(
    private readonly catalog: UploadCatalog,
    private readonly root: string,
    readonly options: UploadQuotaOptions,
    private readonly freeBytes: (dir: string) => number = freeDiskBytes,
  ) {}

  /** Throws the refusal for an upload of `askedBytes` begun by `deviceId`, if any. */
  check(deviceId: string | null, askedBytes: number): void {
    const { perDeviceBytes, totalBytes, headroomBytes } = this.options;
    const ofDevice = this.catalog.bytesOfDevice(deviceId);
    if (ofDevice + askedBytes > perDeviceBytes) throw uploadErrors.deviceQuota(askedBytes, ofDevice, perDeviceBytes);
    const { bytes, unwritten } = this.catalog.totals();
    if (bytes + askedBytes > totalBytes) throw uploadErrors.totalQuota(askedBytes, bytes, totalBytes);
    const free = Math.max(0, this.freeBytes(this.root) - headroomBytes - unwritten);
    if (askedBytes > free) throw uploadErrors.diskSpace(askedBytes, free, { headroomBytes, promisedBytes: unwritten });
  }
}
