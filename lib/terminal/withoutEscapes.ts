import { parse } from '@ansi-tools/parser';

/** `text` without its escape sequences (colours, cursor moves, titles), read by the same parser as the app's terminal rows. */
export function withoutEscapes(text: string): string {
  return parse(text)
    .filter((code) => code.type === 'TEXT')
    .map((code) => code.raw)
    .join('');
}
