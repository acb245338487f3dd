import type { MessageState } from '../protocol/rows';
import { RpcError } from './rpcClient';

// The outbox's decisions (PWA-4) as pure functions, so they run in unit tests without IndexedDB;
// lib/client/outbox.ts applies them inside its transactions.

/** State of an unsent message on this device (PWA-4). */
export type OutboxState = 'queued' | 'sending' | 'sent' | 'failed';

/** The fields of a stored outbox entry (lib/client/appDb.ts) that the rules read and write. */
export interface OutboxRecord {
  operationId: string;
  sessionId: string;
  createdAt: number;
  seq: number;
  state: OutboxState;
  attempts: number;
  error?: string;
  runId?: string;
  runState?: MessageState;
  claimedBy?: string;
  claimedUntil?: number;
  sentAt?: number;
}

/** How long a tab's claim on an entry holds when nothing tells that the tab is gone. */
export const CLAIM_LEASE_MS = 60_000;
/** Sent entries are kept this long (to show "sent" until the timeline has the message). */
export const SENT_KEEP_MS = 24 * 60 * 60 * 1000;

export interface ClaimContext {
  now: number;
  /** Tabs known to be open (Web Locks), or null when the browser cannot tell. */
  liveTabs: ReadonlySet<string> | null;
}

export type SendOutcome =
  { kind: 'sent'; runId: string; runState: MessageState } | { kind: 'requeue' } | { kind: 'fail'; message: string };

/** A claim whose tab closed, or whose lease ran out, may be taken over (the send is idempotent). */
function isClaimLapsed(entry: OutboxRecord, context: ClaimContext): boolean {
  if (entry.claimedBy === undefined || entry.claimedUntil === undefined) return true;
  if (entry.claimedUntil <= context.now) return true;
  return context.liveTabs !== null && !context.liveTabs.has(entry.claimedBy);
}

/**
 * The entry to send next: per session, the first entry by `seq` that still waits (queued, or a
 * lapsed claim); a session whose first waiting entry is being sent by a live tab waits for it, so
 * each session's messages go out one at a time and in order. Across sessions the oldest goes first.
 * `recheckAt` is when the first live claim that holds a session back lapses; `blockedBy` names the
 * tabs holding them (their closing frees the session at once).
 */
export function pickNextToSend<E extends OutboxRecord>(
  entries: readonly E[],
  context: ClaimContext,
): { entry: E | null; recheckAt: number | null; blockedBy: string[] } {
  const heads = new Map<string, E>();
  for (const entry of entries) {
    // NOTE: a failed entry does not hold back later ones: it waits for the user (Retry or
    // Discard), and the runtime's refusal (unknown session, conflict) would not change by waiting.
    if (entry.state !== 'queued' && entry.state !== 'sending') continue;
    const head = heads.get(entry.sessionId);
    if (!head || entry.seq < head.seq) heads.set(entry.sessionId, entry);
  }
  let next: E | null = null;
  let recheckAt: number | null = null;
  const blockedBy = new Set<string>();
  for (const head of heads.values()) {
    if (head.state === 'sending' && !isClaimLapsed(head, context)) {
      recheckAt = Math.min(recheckAt ?? Infinity, head.claimedUntil ?? context.now);
      if (head.claimedBy !== undefined) blockedBy.add(head.claimedBy);
      continue;
    }
    if (!next || head.createdAt < next.createdAt || (head.createdAt === next.createdAt && head.seq < next.seq))
      next = head;
  }
  return { entry: next, recheckAt, blockedBy: [...blockedBy] };
}

/** The entry as claimed by `tabId` for one send attempt. */
export function claimEntry<E extends OutboxRecord>(entry: E, tabId: string, now: number): E {
  const { error: _error, ...rest } = entry;
  return {
    ...rest,
    state: 'sending',
    attempts: entry.attempts + 1,
    claimedBy: tabId,
    claimedUntil: now + CLAIM_LEASE_MS,
  } as E;
}

/**
 * What a failed `chat.send` means for its entry: a lost connection (or a token refused on the way)
 * sends it again on the next connection; an error answer about the message itself (conflict,
 * not_found, invalid_params, …) fails it with the runtime's message until the user acts.
 */
export function classifySendFailure(error: unknown, connectionClosed: boolean): SendOutcome {
  if (error instanceof RpcError) {
    if (error.code === 'closed' || error.code === 'unauthorized') return { kind: 'requeue' };
    return { kind: 'fail', message: error.message };
  }
  if (connectionClosed) return { kind: 'requeue' };
  return { kind: 'fail', message: error instanceof Error ? error.message : 'The message could not be sent.' };
}

function withoutClaim<E extends OutboxRecord>(entry: E): E {
  const { claimedBy: _by, claimedUntil: _until, ...rest } = entry;
  return rest as E;
}

/**
 * The entry after one send attempt by `tabId`, or null when the outcome changes nothing: a
 * confirmation always wins (it is the runtime's word); a requeue only undoes this tab's own
 * claim; a failure never overrides a confirmation another tab got meanwhile.
 */
export function settleEntry<E extends OutboxRecord>(
  entry: E,
  outcome: SendOutcome,
  tabId: string,
  now: number,
): E | null {
  switch (outcome.kind) {
    case 'sent': {
      if (entry.state === 'sent') return null;
      const { error: _error, ...rest } = withoutClaim(entry);
      return { ...rest, state: 'sent', runId: outcome.runId, runState: outcome.runState, sentAt: now } as E;
    }
    case 'requeue':
      if (entry.state !== 'sending' || entry.claimedBy !== tabId) return null;
      return { ...withoutClaim(entry), state: 'queued' };
    case 'fail':
      if (entry.state === 'sent' || entry.state === 'failed') return null;
      return { ...withoutClaim(entry), state: 'failed', error: outcome.message };
  }
}

/** A failed entry goes back in line (same operation id, so a late success is not doubled). */
export function retryEntry<E extends OutboxRecord>(entry: E): E | null {
  if (entry.state !== 'failed') return null;
  const { error: _error, ...rest } = entry;
  return { ...rest, state: 'queued' } as E;
}

/**
 * The entries a session's timeline shows below the runtime's rows: waiting and failed ones, and
 * sent ones until the runtime's timeline has their message (same operation id), so no message
 * shows twice. A failed entry always shows: it needs the user.
 */
export function entriesToShow<E extends OutboxRecord>(
  entries: readonly E[],
  timelineOperationIds: ReadonlySet<string>,
): E[] {
  return entries
    .filter((entry) => entry.state === 'failed' || !timelineOperationIds.has(entry.operationId))
    .sort((a, b) => a.seq - b.seq);
}

export function isExpiredSent(entry: OutboxRecord, now: number): boolean {
  return entry.state === 'sent' && (entry.sentAt ?? entry.createdAt) < now - SENT_KEEP_MS;
}
