import { describe, expect, it } from 'vitest';
import { isFinalOutputPage, outputPageKey, outputSource } from '../../../lib/client/output/outputCachePolicy';
import { MAX_COMMAND_OUTPUT_RANGE_BYTES } from '../../../lib/protocol/version';

const FULL = MAX_COMMAND_OUTPUT_RANGE_BYTES;

describe('output page cache policy', () => {
  it('PWA-3 keys a page by source, generation and offset, so another generation is another page', () => {
    const source = outputSource('s1', 'r1', 'c1');
    expect(source).toBe('s1:r1:c1');
    expect(outputPageKey(source, 0, FULL)).toBe('s1:r1:c1|0|262144');
    expect(outputPageKey(source, 1, FULL)).not.toBe(outputPageKey(source, 0, FULL));
  });

  it('PWA-3 caches a full 256 KiB page even while its command runs', () => {
    expect(isFinalOutputPage({ offset: FULL, byteCount: FULL, availableBytes: 3 * FULL + 5, complete: false })).toBe(
      true,
    );
  });

  it('PWA-3 never caches a short page of a running command (it may still grow)', () => {
    expect(isFinalOutputPage({ offset: 0, byteCount: 100, availableBytes: 100, complete: false })).toBe(false);
    expect(
      isFinalOutputPage({ offset: FULL, byteCount: FULL - 1, availableBytes: 2 * FULL - 1, complete: false }),
    ).toBe(false);
  });

  it('PWA-3 caches the short last page of a complete command, and never an empty page', () => {
    expect(isFinalOutputPage({ offset: FULL, byteCount: 10, availableBytes: FULL + 10, complete: true })).toBe(true);
    expect(isFinalOutputPage({ offset: 0, byteCount: 0, availableBytes: 0, complete: true })).toBe(false);
    // An answer past what the runtime says it holds is not trusted.
    expect(isFinalOutputPage({ offset: 0, byteCount: 20, availableBytes: 10, complete: true })).toBe(false);
  });
});
