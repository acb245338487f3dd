/** What the phone key row sends (TERM-6): the bytes a desktop terminal sends for those keys. */
export const TERMINAL_KEYS = {
  escape: '\x1b',
  tab: '\t',
} as const;

export type ArrowKey = 'up' | 'down' | 'right' | 'left';
const ARROW_LETTERS: Record<ArrowKey, string> = { up: 'A', down: 'B', right: 'C', left: 'D' };

/** An arrow key: `ESC O x` when the program asked for application cursor keys (vim, less), `ESC [ x` otherwise. */
export function arrowKey(key: ArrowKey, applicationCursor: boolean): string {
  return `\x1b${applicationCursor ? 'O' : '['}${ARROW_LETTERS[key]}`;
}

/**
 * Ctrl held with one typed key (the key row's sticky Ctrl): a letter or one of `@[\]^_` becomes
 * its control character, `?` becomes DEL; anything else goes as typed.
 */
export function withCtrl(data: string): string {
  if (data.length !== 1) return data;
  if (data === '?') return '\x7f';
  const code = data.toUpperCase().charCodeAt(0);
  return code >= 0x40 && code <= 0x5f ? String.fromCharCode(code - 0x40) : data;
}
