import type { AgentKind, Session } from '../../../lib/protocol/rows';
import type { Agent } from '../agents/agent';
import { notFound, RuntimeError, unavailable } from '../errors';
import { itemFieldText } from './itemRows';
import { targetOf, type LiveOverlayStore } from './liveOverlay';
import type { SessionStore } from './sessionStore';

export interface ItemTextRequest {
  sessionId: string;
  parentItemId: string | null;
  itemId: string;
  field: string;
  offset: number;
  length: number;
}

export interface ItemTextSlice {
  offset: number;
  dataBase64: string;
  byteCount: number;
  availableBytes: number;
}

export interface ItemTextDeps {
  sessions: SessionStore;
  overlay: LiveOverlayStore;
  agents: ReadonlyMap<AgentKind, Agent>;
  /** Where the session works: its worktree, else its project folder. */
  sessionDirectory: (session: Session) => string | undefined;
}

/**
 * `sessions.itemText` (TL-1, TL-3): a byte range of one long text of an item. A live item's
 * whole text is in the overlay; once saved, the agent reads it from its own history.
 */
export async function readItemText(deps: ItemTextDeps, request: ItemTextRequest): Promise<ItemTextSlice> {
  const session = deps.sessions.session(request.sessionId);
  if (!session) throw notFound('No such session.', { sessionId: request.sessionId });
  const live = deps.overlay.find(session.id, targetOf(session.id, request.parentItemId), request.itemId);
  if (live) {
    const text = itemFieldText(live.item, request.field);
    if (text === null) throw notFound('This item has no such text.', { itemId: request.itemId, field: request.field });
    const bytes = Buffer.from(text, 'utf8');
    const slice = bytes.subarray(
      Math.min(request.offset, bytes.length),
      Math.min(request.offset + request.length, bytes.length),
    );
    return {
      offset: request.offset,
      dataBase64: slice.toString('base64'),
      byteCount: slice.length,
      availableBytes: bytes.length,
    };
  }
  const agent = deps.agents.get(session.agent);
  const cwd = deps.sessionDirectory(session);
  if (!agent?.readItemText || !cwd) throw notFound('No such item in this session.', { itemId: request.itemId });
  let slice;
  try {
    slice = await agent.readItemText({ ...request, cwd });
  } catch (error) {
    if (error instanceof RuntimeError) throw error;
    if ((error as { code?: unknown }).code === 'not_found')
      throw notFound('No such item in this session.', { itemId: request.itemId });
    throw unavailable('The agent could not read this text from its history.', { reason: (error as Error).message });
  }
  return {
    offset: request.offset,
    dataBase64: slice.bytes.toString('base64'),
    byteCount: slice.bytes.length,
    availableBytes: slice.availableBytes,
  };
}
