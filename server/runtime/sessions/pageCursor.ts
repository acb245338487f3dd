import { z } from 'zod';
import { invalidParams } from '../errors';
import { parseJsonWith } from '../../../lib/shared/parseJsonWith';

/**
 * A `sessions.timeline` cursor (TL-4), opaque to clients: the agent's own cursor for a page of
 * its history, or the run position of a page of the app's own rows (shell sessions, agents
 * without a readable history).
 */
const CursorSchema = z.discriminatedUnion('k', [
  z.object({ k: z.literal('agent'), c: z.string() }),
  /** Rows of runs with seq below (`before`) or from (`after`) this one. */
  z.object({ k: z.literal('runs'), seq: z.number().int().nonnegative() }),
]);
export type PageCursor = z.infer<typeof CursorSchema>;

export const encodeCursor = (cursor: PageCursor) => Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');

export function decodeCursor(text: string): PageCursor {
  const cursor = parseJsonWith(CursorSchema, Buffer.from(text, 'base64url').toString('utf8'));
  if (!cursor) throw invalidParams('This timeline cursor is not one the runtime gave.');
  return cursor;
}
