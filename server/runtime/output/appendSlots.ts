import { BufferPool } from '../../../lib/shared/bufferPool';

/** Bytes one append slot holds: the largest write-ahead group (OUT-2). */
export const SLOT_BYTES = 1024 * 1024;
/** Free slots kept for reuse across commands; more are allocated while many streams are busy. */
const CACHED_SLOTS = 16;

const slots = new BufferPool<Buffer>(() => Buffer.allocUnsafeSlow(SLOT_BYTES), {
  keep: CACHED_SLOTS,
  reusable: (slot) => slot.length === SLOT_BYTES,
});

/**
 * Buffers that write-ahead groups are gathered in, each owning its memory so it can be moved to
 * the SHA-256 worker and back without a copy. Reusing them spares the page faults of fresh
 * allocations, which cost more than the copy itself on a virtual machine (PERF-1).
 */
export function acquireSlot(bytes = SLOT_BYTES): Buffer {
  if (bytes > SLOT_BYTES) return Buffer.allocUnsafeSlow(bytes);
  return slots.acquire();
}

/** Returns a slot once its append is done; oversized ones are left to the collector. */
export function releaseSlot(slot: Buffer): void {
  slots.release(slot);
}
