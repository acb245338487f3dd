/**
 * Links in rendered Markdown (SEC-3): only http(s) and relative links survive; relative ones are
 * resolved against the document's own address when it has one. Anything else (javascript:,
 * data:, file:, custom schemes) renders as no link at all.
 */
export function safeMarkdownUrl(url: string, baseUrl?: string): string | null {
  const trimmed = url.trim();
  if (trimmed === '') return null;
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(trimmed);
  // NOTE: browsers strip tabs and newlines inside a scheme ("java\tscript:"), so test without them too.
  const squeezed = trimmed.replace(/[\t\n\r]/g, '');
  const squeezedScheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(squeezed);
  if (scheme || squeezedScheme) {
    const name = (scheme ?? squeezedScheme)![1]!.toLowerCase();
    return name === 'http' || name === 'https' ? trimmed : null;
  }
  if (trimmed.startsWith('//')) return null; // scheme-relative: would borrow the app's scheme and leave for any host
  if (!baseUrl) return trimmed;
  try {
    const resolved = new URL(trimmed, baseUrl);
    return resolved.protocol === 'http:' || resolved.protocol === 'https:' ? resolved.href : trimmed;
  } catch {
    return null;
  }
}

/**
 * Hyperlinks a command printed (OSC 8) in the output viewer (SEC-3): only absolute http(s)
 * addresses become links; the output has no base address, and any other scheme renders as text.
 */
export function safeTerminalUrl(url: string): string | null {
  const safe = safeMarkdownUrl(url);
  return safe !== null && /^https?:\/\//i.test(safe) ? safe : null;
}
