import crypto from 'node:crypto';
import { AgentItemRowSchema, type AgentItem, type AgentItemRow, type TextBody } from '../../../lib/protocol/rows';

/** Inline part of a long text in a row (TL-1): the rest is read through `sessions.itemText`. */
export const INLINE_TEXT_BYTES = 64 * 1024;

/** Stable across live and saved (TL-3): `i:<itemId>`, or `i:<parentItemId>:<itemId>` inside a subagent. */
export const itemRowId = (parentItemId: string | null, itemId: string) =>
  parentItemId === null ? `i:${itemId}` : `i:${parentItemId}:${itemId}`;

/** The longest prefix of `text` of at most `maxBytes` UTF-8 bytes that ends on a character boundary. */
export function utf8Prefix(text: string, maxBytes: number): string {
  // Every UTF-16 unit is at most 3 UTF-8 bytes: short texts need no encoding.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

function inlineBody(body: TextBody): TextBody {
  const prefix = utf8Prefix(body.text, INLINE_TEXT_BYTES);
  if (prefix === body.text) return body;
  return {
    text: prefix,
    byteLength: body.truncated ? body.byteLength : Buffer.byteLength(body.text, 'utf8'),
    truncated: true,
  };
}

const inlineNullable = (body: TextBody | null) => (body === null ? null : inlineBody(body));

/** The row as it goes on the wire: every long text cut to its inline prefix, saying how long the whole is (TL-1). */
export function inlineTexts(row: AgentItemRow): AgentItemRow {
  switch (row.kind) {
    case 'fileChange':
      return { ...row, files: row.files.map((file) => ({ ...file, diff: inlineBody(file.diff) })) };
    case 'toolCall':
      return { ...row, input: inlineBody(row.input), result: inlineNullable(row.result) };
    case 'subagent':
      return { ...row, result: inlineNullable(row.result) };
    case 'agentError':
      return { ...row, detail: inlineNullable(row.detail) };
    case 'rawItem':
      return { ...row, text: inlineBody(row.text) };
    default:
      return row;
  }
}

/**
 * The row of an item as it goes on the wire: live from the overlay, or saved from the agent's
 * history (TL-3), checked against its kind's schema and with long texts cut (TL-1).
 */
export function wireItemRow(
  item: AgentItem,
  sessionId: string,
  runId: string | null,
  source: 'live' | 'saved',
): AgentItemRow {
  const parentItemId = typeof item.parentItemId === 'string' ? item.parentItemId : null;
  const candidate = { ...item, id: itemRowId(parentItemId, String(item.itemId)), sessionId, runId, source };
  return inlineTexts(checkedItemRow(candidate, sessionId, parentItemId, runId, source));
}

/**
 * An item this version cannot show as its kind (an unknown kind, a field of the wrong type) is
 * shown as a raw row with its JSON text, never dropped (TL-1). Its id is the agent's itemId when
 * it has one, else a digest of the text, so it stays the same row on every read.
 */
export function checkedItemRow(
  candidate: unknown,
  sessionId: string,
  parentItemId: string | null,
  runId: string | null,
  source: 'live' | 'saved',
): AgentItemRow {
  const parsed = AgentItemRowSchema.safeParse(candidate);
  if (parsed.success) return parsed.data;
  const text = safeJson(candidate);
  const fields = typeof candidate === 'object' && candidate !== null ? (candidate as Record<string, unknown>) : {};
  const itemId =
    typeof fields.itemId === 'string' && fields.itemId !== ''
      ? fields.itemId
      : `raw-${crypto.createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
  const createdAt = typeof fields.createdAt === 'number' && Number.isInteger(fields.createdAt) ? fields.createdAt : 0;
  const label = typeof fields.kind === 'string' ? fields.kind.slice(0, 100) : 'unknown';
  return {
    kind: 'rawItem',
    id: itemRowId(parentItemId, itemId),
    sessionId,
    runId,
    itemId,
    parentItemId,
    createdAt,
    source,
    label,
    text: { text, byteLength: Buffer.byteLength(text, 'utf8'), truncated: false },
  };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

const DIFF_FIELD = /^files\.(\d{1,6})\.diff$/;

/** The whole text of one field of an item (`text`, `input`, `result`, `detail`, `files.<i>.diff`), or null. */
export function itemFieldText(item: AgentItem, field: string): string | null {
  const fields = item as unknown as Record<string, unknown>;
  const diff = DIFF_FIELD.exec(field);
  if (diff) {
    const files = fields.files;
    return Array.isArray(files)
      ? bodyText((files[Number(diff[1])] as Record<string, unknown> | undefined)?.diff)
      : null;
  }
  return ['text', 'input', 'result', 'detail'].includes(field) ? bodyText(fields[field]) : null;
}

function bodyText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { text?: unknown }).text === 'string')
    return (value as { text: string }).text;
  return null;
}
