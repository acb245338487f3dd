/**
 * A time short enough for a list line (UX-3): "5:37 PM" today, "Dec 1" this year, "Dec 1, 2025"
 * before; the full date and time go in the element's title.
 */
export function shortTime(at: number, now: number, locale?: string): string {
  const date = new Date(at);
  const today = new Date(now);
  if (date.toDateString() === today.toDateString()) return date.toLocaleTimeString(locale, { timeStyle: 'short' });
  if (date.getFullYear() === today.getFullYear())
    return date.toLocaleDateString(locale, { month: 'short', day: 'numeric' });
  return date.toLocaleDateString(locale, { dateStyle: 'medium' });
}
