/** How deep JSON envelopes around a tool's output are unwrapped (TL-2). */
const MAX_ENVELOPE_DEPTH = 6;

/** The fields that make a nested object a command's transport rather than data (TL-2). */
const TRANSPORT_FIELDS = ['stdout', 'stderr', 'wall_time_seconds', 'exit_code', 'exitCode'] as const;
/** Single keys an envelope wraps its payload in. */
const WRAPPER_FIELDS = ['output', 'content', 'result', 'text', 'data'] as const;

export interface ToolOutputTransport {
  stdout?: string;
  stderr?: string;
  exitCode?: number | null;
  wallTimeSeconds?: number;
}

export interface DecodedToolOutput {
  /** The output for people: the innermost text, or pretty JSON of data that is no envelope. */
  text: string;
  /** Set only when an object with transport fields was found. */
  transport: ToolOutputTransport | null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string that is a whole JSON document; a truncated or plain one stays text. */
function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false } {
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[' && first !== '"') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** A content-block list (`[{type:'text', text}]`) as its text; null when it is something else. */
function blockListText(value: unknown[]): string | null {
  if (value.length === 0 || !value.every((b) => isRecord(b) && typeof b.type === 'string')) return null;
  return value
    .map((b) => {
      if (!isRecord(b)) return '';
      if (b.type === 'text' && typeof b.text === 'string') return b.text;
      if (b.type === 'tool_reference') return String(b.tool_name ?? b.name ?? '');
      return `[${String(b.type)}]`;
    })
    .join('\n');
}

function transportOf(value: Record<string, unknown>): ToolOutputTransport | null {
  if (!TRANSPORT_FIELDS.some((field) => field in value)) return null;
  const transport: ToolOutputTransport = {};
  if (typeof value.stdout === 'string') transport.stdout = value.stdout;
  if (typeof value.stderr === 'string') transport.stderr = value.stderr;
  const exit = value.exit_code ?? value.exitCode;
  if (typeof exit === 'number' || exit === null) transport.exitCode = exit;
  if (typeof value.wall_time_seconds === 'number') transport.wallTimeSeconds = value.wall_time_seconds;
  return transport;
}

function pretty(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value));
}

/**
 * Unwraps the JSON envelopes a tool's result comes in, up to six levels (TL-2): JSON in a
 * string, `{output|content|result|text|data: …}` wrappers and text-block lists. A nested object
 * counts as command transport only when it has transport fields (`stdout`, `stderr`,
 * `wall_time_seconds`…); any other object is data and is shown as JSON. A truncated envelope is
 * not JSON and stays the raw text.
 */
export function decodeToolOutput(value: unknown): DecodedToolOutput {
  let current = value;
  let levels = 0;
  // Each parse of JSON text makes the text shorter, so this ends; the bound is for safety only.
  for (let step = 0; step < 4 * MAX_ENVELOPE_DEPTH; step++) {
    if (typeof current === 'string') {
      const parsed = parseJsonText(current);
      if (!parsed.ok) return { text: current, transport: null };
      current = parsed.value;
      continue;
    }
    if (levels >= MAX_ENVELOPE_DEPTH) break;
    if (Array.isArray(current)) {
      const text = blockListText(current);
      if (text === null) return { text: pretty(current), transport: null };
      current = text;
      levels += 1;
      continue;
    }
    if (!isRecord(current)) return { text: current === undefined || current === null ? '' : String(current), transport: null };
    const transport = transportOf(current);
    if (transport) {
      const text = [transport.stdout, transport.stderr].filter((part) => part !== undefined && part !== '').join('\n');
      return { text, transport };
    }
    const object = current;
    const keys = Object.keys(object);
    const wrapper = WRAPPER_FIELDS.find((field) => field in object);
    const onlyWrapper = wrapper !== undefined && keys.every((key) => key === wrapper || key === 'type' || key === 'isError' || key === 'is_error');
    if (!onlyWrapper) return { text: pretty(current), transport: null };
    current = object[wrapper];
    levels += 1;
  }
  return { text: pretty(current), transport: null };
}
