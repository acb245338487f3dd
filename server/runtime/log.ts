/**
 * The runtime's log: one line per event, to stderr. Callers pass identifiers and sizes, never
 * tokens or file contents (SEC-4).
 */
export type LogFields = Record<string, string | number | boolean | null>;

export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  /** An internal fault: `error`, when given, is logged with its stack (and its causes'). */
  error(message: string, fields?: LogFields, error?: unknown): void;
}

/** The stack of an error and of each cause under it, indented under the log line. */
export function stackLines(error: unknown): string {
  const lines: string[] = [];
  for (
    let at = error, depth = 0;
    at !== undefined && at !== null && depth < 5;
    at = at instanceof Error ? at.cause : undefined, depth++
  ) {
    const text = at instanceof Error ? (at.stack ?? `${at.name}: ${at.message}`) : String(at);
    lines.push(...(depth === 0 ? text : `caused by ${text}`).split('\n'));
  }
  return lines.map((line) => `    ${line.trim()}`).join('\n');
}

export function formatLogLine(
  level: string,
  message: string,
  fields?: LogFields,
  error?: unknown,
  at = new Date(),
): string {
  const extra = fields
    ? ' ' +
      Object.entries(fields)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(' ')
    : '';
  return `${at.toISOString()} ${level} ${message}${extra}\n${error === undefined ? '' : stackLines(error) + '\n'}`;
}

export const consoleLogger: Logger = {
  info: (m, f) => process.stderr.write(formatLogLine('info', m, f)),
  warn: (m, f) => process.stderr.write(formatLogLine('warn', m, f)),
  error: (m, f, e) => process.stderr.write(formatLogLine('error', m, f, e)),
};

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
