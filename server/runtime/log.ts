/**
 * The runtime's log: one line per event, to stderr. Callers pass identifiers and sizes, never
 * tokens or file contents (SEC-4).
 */
export interface Logger {
  info(message: string, fields?: Record<string, string | number | boolean | null>): void;
  warn(message: string, fields?: Record<string, string | number | boolean | null>): void;
  error(message: string, fields?: Record<string, string | number | boolean | null>): void;
}

function write(level: string, message: string, fields?: Record<string, string | number | boolean | null>): void {
  const extra = fields ? ' ' + Object.entries(fields).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ') : '';
  process.stderr.write(`${new Date().toISOString()} ${level} ${message}${extra}\n`);
}

export const consoleLogger: Logger = {
  info: (m, f) => write('info', m, f),
  warn: (m, f) => write('warn', m, f),
  error: (m, f) => write('error', m, f),
};

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
