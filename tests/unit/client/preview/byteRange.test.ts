import { describe, expect, it } from 'vitest';
import { parseRangeHeader, resolveRange } from '../../../../lib/client/preview/byteRange';

describe('PRV-3 Range requests of previewed media', () => {
  it.each([
    ['bytes=0-', 1000, { start: 0, end: 999 }],
    ['bytes=100-199', 1000, { start: 100, end: 199 }],
    ['bytes=900-5000', 1000, { start: 900, end: 999 }],
    ['bytes=-100', 1000, { start: 900, end: 999 }],
    ['bytes=-5000', 1000, { start: 0, end: 999 }],
    ['bytes=1000-', 1000, null],
    ['bytes=-0', 1000, null],
  ])('PRV-3 %s of %i bytes is %j', (header, size, span) => {
    expect(resolveRange(parseRangeHeader(header)!, size)).toEqual(span);
  });

  it.each([null, '', 'bytes=5-1', 'bytes=0-1,5-6', 'items=0-1', 'bytes=-', 'bytes=a-b'])(
    'PRV-3 %j is not a single range: the file is answered whole',
    (header) => {
      expect(parseRangeHeader(header)).toBeNull();
    },
  );
});
