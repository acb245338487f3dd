import { describe, expect, it } from 'vitest';
import { shortTime } from '../../../lib/client/shortTime';

const NOW = new Date(2026, 11, 1, 17, 40).getTime();

describe('UX-3 a session time short enough for its list line', () => {
  it('today: the time only', () => {
    expect(shortTime(new Date(2026, 11, 1, 9, 5).getTime(), NOW, 'en-US')).toBe('9:05 AM');
  });
  it('earlier this year: month and day', () => {
    expect(shortTime(new Date(2026, 10, 30, 23, 59).getTime(), NOW, 'en-US')).toBe('Nov 30');
  });
  it('another year: the date with its year', () => {
    expect(shortTime(new Date(2025, 11, 1, 17, 40).getTime(), NOW, 'en-US')).toBe('Dec 1, 2025');
  });
});
