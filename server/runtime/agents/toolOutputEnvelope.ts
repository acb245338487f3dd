/**
 * Tool results as agents wrap them: JSON envelopes inside JSON strings, content-block lists,
 * command transport objects. TL-2: unwrapped up to six levels deep; a nested object counts as
 * command transport only when it has transport fields. A level is one object or block list
 * opened; the JSON text of the seventh is shown as it is.
 */
export const MAX_ENVELOPE_DEPTH = 6;

export interface CommandTransport {
  stdout?: string;
  stderr?: string;
  exitCode?: number | null;
  wallTimeSeconds?: number;
}

export interface DecodedToolOutput {
  text: string;
  transport: CommandTransport | null;
}

const TRANSPORT_FIELDS = ['stdout', 'stderr', 'wall_time_seconds', 'wallTimeSeconds', 'exit_code', 'exitCode'] as const;
/** Keys whose value is the envelope's payload, in the order they are tried. */
const PAYLOAD_KEYS = ['content', 'output', 'result', 'text', 'data', 'value'] as const;
/** Keys that travel beside a payload and carry nothing to show. */
const ENVELOPE_NOISE = new Set([
  'type',
  'structuredContent',
  '_meta',
  'isError',
  'is_error',
  'success',
  'metadata',
  'annotations',
  'id',
  'tool_use_id',
]);
const TEXT_BLOCK_TYPES = new Set(['text', 'input_text', 'output_text', 'inputText', 'outputText']);

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pretty(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value));
}

/** A JSON document (object, list or string) in a string, or undefined when it is not one (a cut envelope stays text). */
function parseJsonText(text: string): unknown {
  const trimmed = text.trim();
  if (!(trimmed.startsWith('{') || trimmed.startsWith('[') || trimmed.startsWith('"'))) return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return undefined;
  }
}

function numberField(object: JsonObject, ...keys: string[]): number | undefined {
  for (const key of keys) if (typeof object[key] === 'number') return object[key];
  return undefined;
}

function transportOf(object: JsonObject): CommandTransport | null {
  const metadata = isObject(object.metadata) ? object.metadata : {};
  if (!TRANSPORT_FIELDS.some((key) => key in object)) return null;
  const transport: CommandTransport = {};
  if (typeof object.stdout === 'string') transport.stdout = object.stdout;
  if (typeof object.stderr === 'string') transport.stderr = object.stderr;
  const exitCode = numberField(object, 'exit_code', 'exitCode') ?? numberField(metadata, 'exit_code', 'exitCode');
  if (exitCode !== undefined) transport.exitCode = exitCode;
  else if ('exit_code' in object || 'exitCode' in object) transport.exitCode = null;
  const wall = numberField(object, 'wall_time_seconds', 'wallTimeSeconds');
  if (wall !== undefined) transport.wallTimeSeconds = wall;
  return transport;
}

function blockText(block: unknown, depth: number): string {
  if (!isObject(block)) return decodeAt(block, depth).text;
  if (typeof block.type === 'string' && TEXT_BLOCK_TYPES.has(block.type) && typeof block.text === 'string')
    return decodeAt(block.text, depth).text;
  if (block.type === 'tool_reference') return String(block.tool_name ?? block.name ?? '');
  return `[${String(block.type ?? 'item')}]`;
}

function isBlockList(value: unknown[]): boolean {
  return value.length > 0 && value.every((block) => isObject(block) && typeof block.type === 'string');
}

function decodeAt(value: unknown, depth: number): DecodedToolOutput {
  if (depth > MAX_ENVELOPE_DEPTH) return { text: pretty(value), transport: null };
  if (typeof value === 'string') {
    const parsed = parseJsonText(value);
    // A JSON string is the same envelope serialised: parsing it opens no new level.
    return parsed === undefined ? { text: value, transport: null } : decodeAt(parsed, depth);
  }
  if (Array.isArray(value)) {
    if (!isBlockList(value)) return { text: pretty(value), transport: null };
    return { text: value.map((block) => blockText(block, depth + 1)).join('\n'), transport: null };
  }
  if (!isObject(value)) return { text: value === undefined ? '' : pretty(value), transport: null };
  const transport = transportOf(value);
  if (transport) {
    const output =
      typeof value.output === 'string'
        ? value.output
        : typeof value.aggregated_output === 'string'
          ? value.aggregated_output
          : null;
    const text =
      output ??
      [transport.stdout, transport.stderr].filter((part) => part).join(transport.stdout?.endsWith('\n') ? '' : '\n');
    return { text, transport };
  }
  const payloadKey = PAYLOAD_KEYS.find((key) => key in value && value[key] !== null && value[key] !== undefined);
  const others = Object.keys(value).filter((key) => key !== payloadKey && !ENVELOPE_NOISE.has(key));
  if (payloadKey && others.length === 0) {
    const inner = decodeAt(value[payloadKey], depth + 1);
    // Legacy exec envelopes keep the exit code beside the output: `{ output, metadata: { exit_code } }`.
    const metadata = isObject(value.metadata) ? transportOf(value.metadata) : null;
    return { text: inner.text, transport: inner.transport ?? metadata };
  }
  return { text: pretty(value), transport: null };
}

/** The text to show for a tool result, and its command transport when it is one (TL-2). */
export function decodeToolOutput(value: unknown): DecodedToolOutput {
  return decodeAt(value, 1);
}
