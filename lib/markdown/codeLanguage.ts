/**
 * The language of a code block from the class names sites use: `language-x` (Prism, highlight.js,
 * CommonMark), `lang-x` (Prettify, Stack Overflow), `highlight-source-x` (GitHub), `brush: x`
 * (SyntaxHighlighter). Checked on the `<pre>`, its `<code>` and the wrapper around them.
 */
const PATTERNS = [
  /(?:^|\s)language-([\w#+.-]+)/i,
  /(?:^|\s)lang-([\w#+.-]+)/i,
  /(?:^|\s)highlight-source-([\w#+.-]+)/i,
  /(?:^|\s)highlight-([\w#+.-]+)/i,
  /brush:\s*([\w#+.-]+)/i,
];

const NOT_LANGUAGES = new Set(['none', 'plain', 'plaintext', 'text', 'nohighlight', 'source']);

export function languageFromClassNames(...classNames: (string | null | undefined)[]): string | null {
  for (const pattern of PATTERNS) {
    for (const className of classNames) {
      const match = className ? pattern.exec(className) : null;
      const language = match?.[1]?.toLowerCase();
      if (language && !NOT_LANGUAGES.has(language)) return language;
    }
  }
  return null;
}
