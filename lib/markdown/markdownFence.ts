/** A fenced code block whose fence is longer than any backtick run inside the code (CommonMark). */
export function fencedCodeBlock(code: string, language: string | null): string {
  const longestRun = Math.max(0, ...Array.from(code.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  return `\n\n${fence}${language ?? ''}\n${code.replace(/\n$/, '')}\n${fence}\n\n`;
}
