import { withTransaction, type OutboxEntry } from './appDb';
import {
  claimEntry,
  classifySendFailure,
  isExpiredSent,
  pickNextToSend,
  retryEntry,
  settleEntry,
  type SendOutcome,
} from './outboxRules';
import type { RpcClient } from './rpcClient';
import type { OutboxAttachment } from './attachments/outboxAttachment';
import { uploadEntryAttachments } from './attachments/uploadEntryAttachments';
import { checkedRecords, OutboxRecordSchema } from './storage/recordSchemas';

// The durable outbox (PWA-4): a message lives in IndexedDB from the moment it is typed until the
// runtime confirms it. Its operation id makes every resend harmless: chat.send answers a repeat
// with the first answer (STO-2, STO-3), so "send again when unsure" is always safe.

/** Pings other tabs of this origin that the outbox changed; the message content is not used. */
const OUTBOX_CHANNEL = 'hbcode-outbox';
const TAB_LOCK_PREFIX = 'hbcode-outbox-tab:';
/** After an unexpected storage error the sender tries again this much later. */
const STORAGE_RETRY_MS = 5_000;

const listeners = new Set<() => void>();
let channel: BroadcastChannel | null = null;

function notifyListeners(): void {
  for (const listener of listeners) listener();
}

function ensureChannel(): void {
  if (channel || typeof BroadcastChannel === 'undefined') return;
  channel = new BroadcastChannel(OUTBOX_CHANNEL);
  channel.onmessage = notifyListeners;
}

function announceChange(): void {
  notifyListeners();
  ensureChannel();
  channel?.postMessage('changed');
}

/** Calls `listener` whenever the outbox changes, in this tab or another. */
export function subscribeOutbox(listener: () => void): () => void {
  ensureChannel();
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const sessionRange = (sessionId: string) => IDBKeyRange.bound([sessionId, -Infinity], [sessionId, Infinity]);

/** Puts a message in the outbox, last in its session's order; the sender delivers it when it can. */
export async function enqueueMessage(
  sessionId: string,
  text: string,
  options: { mode?: 'steer'; attachments?: OutboxAttachment[] } = {},
): Promise<OutboxEntry> {
  const { mode, attachments = [] } = options;
  const entry = await withTransaction(['outbox'], 'readwrite', async (tx) => {
    const last = await tx.objectStore('outbox').index('bySession').openCursor(sessionRange(sessionId), 'prev');
    const queued: OutboxEntry = {
      operationId: crypto.randomUUID(),
      sessionId,
      text,
      createdAt: Date.now(),
      seq: (last?.value.seq ?? 0) + 1,
      state: 'queued',
      attempts: 0,
      ...(mode ? { mode } : {}),
      ...(attachments.length > 0 ? { attachments } : {}),
    };
    await tx.objectStore('outbox').add(queued);
    return queued;
  });
  announceChange();
  return entry;
}

/** This device's entries for one session, in send order. */
export async function sessionOutbox(sessionId: string): Promise<OutboxEntry[]> {
  return withTransaction(['outbox'], 'readonly', async (tx) =>
    checkedRecords(
      'outbox',
      OutboxRecordSchema,
      await tx.objectStore('outbox').index('bySession').getAll(sessionRange(sessionId)),
    ),
  );
}

/** Changes one entry in one transaction; `change` returns null to leave it as it is. */
async function updateEntry(operationId: string, change: (entry: OutboxEntry) => OutboxEntry | null): Promise<boolean> {
  const changed = await withTransaction(['outbox'], 'readwrite', async (tx) => {
    const entry = await tx.objectStore('outbox').get(operationId);
    const next = entry && change(entry);
    if (!next) return false;
    await tx.objectStore('outbox').put(next);
    return true;
  });
  if (changed) announceChange();
  return changed;
}

/** Puts a failed entry back in line, with the same operation id. */
export function retryOutboxEntry(operationId: string): Promise<boolean> {
  return updateEntry(operationId, retryEntry);
}

/** Drops a failed entry: the user gave up on it. */
export async function discardOutboxEntry(operationId: string): Promise<boolean> {
  const discarded = await withTransaction(['outbox'], 'readwrite', async (tx) => {
    const entry = await tx.objectStore('outbox').get(operationId);
    if (entry?.state !== 'failed') return false;
    await tx.objectStore('outbox').delete(operationId);
    return true;
  });
  if (discarded) announceChange();
  return discarded;
}

async function deleteExpiredSent(now: number): Promise<number> {
  const deleted = await withTransaction(['outbox'], 'readwrite', async (tx) => {
    let count = 0;
    for (let cursor = await tx.objectStore('outbox').openCursor(); cursor; cursor = await cursor.continue()) {
      if (!isExpiredSent(cursor.value, now)) continue;
      await cursor.delete();
      count++;
    }
    return count;
  });
  if (deleted > 0) announceChange();
  return deleted;
}

let tabId: string | null = null;

/**
 * This tab's id. The tab holds a Web Lock named after it until it closes, so another tab can
 * tell a claim of a closed tab (take it over now) from one of a tab still sending (wait).
 */
function thisTab(): string {
  if (tabId) return tabId;
  const id = crypto.randomUUID();
  tabId = id;
  if ('locks' in navigator) void navigator.locks.request(TAB_LOCK_PREFIX + id, () => new Promise<never>(() => {}));
  return id;
}

async function liveTabs(): Promise<Set<string> | null> {
  if (!('locks' in navigator)) return null;
  // NOTE: held only: a pending request for a tab's lock is another tab waiting for it to close.
  const { held = [] } = await navigator.locks.query();
  const names = held.map((lock) => lock.name ?? '');
  return new Set(
    names.filter((name) => name.startsWith(TAB_LOCK_PREFIX)).map((name) => name.slice(TAB_LOCK_PREFIX.length)),
  );
}

/** Resolves when the tab `id` closes (its lock is released), or never without Web Locks. */
function whenTabCloses(id: string, signal: AbortSignal): Promise<void> {
  if (!('locks' in navigator)) return new Promise(() => {});
  return navigator.locks
    .request(TAB_LOCK_PREFIX + id, { signal }, () => undefined)
    .then(
      () => undefined,
      () => new Promise<void>(() => {}),
    );
}

/**
 * Claims the next entry to send in one transaction, so two tabs never claim the same entry at
 * once. The open tabs are looked up first: nothing but database work runs inside the transaction.
 */
async function claimNextEntry(
  tab: string,
): Promise<{ entry: OutboxEntry | null; recheckAt: number | null; blockedBy: string[] }> {
  const context = { now: Date.now(), liveTabs: await liveTabs() };
  const claimed = await withTransaction(['outbox'], 'readwrite', async (tx) => {
    // PWA-8: a damaged entry is neither sent nor deleted; the others go out as if it were not there.
    const next = pickNextToSend(
      checkedRecords('outbox', OutboxRecordSchema, await tx.objectStore('outbox').getAll()),
      context,
    );
    if (!next.entry) return next;
    const entry = claimEntry(next.entry, tab, context.now);
    await tx.objectStore('outbox').put(entry);
    return { ...next, entry };
  });
  if (claimed.entry) announceChange();
  return claimed;
}

async function sendEntry(client: RpcClient, entry: OutboxEntry, tab: string): Promise<SendOutcome> {
  let outcome: SendOutcome;
  try {
    // ATT-1: the files first, each until the runtime confirmed all of it; the message goes once, after.
    const uploadIds = await uploadEntryAttachments(client, entry);
    const attachments = uploadIds.length > 0 ? { attachments: uploadIds.map((uploadId) => ({ uploadId })) } : {};
    const answer = await client.call('chat.send', {
      sessionId: entry.sessionId,
      operationId: entry.operationId,
      text: entry.text,
      ...attachments,
      ...(entry.mode ? { mode: entry.mode } : {}),
    });
    outcome = { kind: 'sent', runId: answer.runId, runState: answer.state };
  } catch (error) {
    outcome = classifySendFailure(error, client.isClosed);
  }
  await updateEntry(entry.operationId, (current) => settleEntry(current, outcome, tab, Date.now()));
  return outcome;
}

/**
 * Sends the outbox over one open connection until it closes or `stop` is called: one entry at a
 * time, each session in order. Wakes when the outbox changes (here or in another tab) and when a
 * claim that held a session back lapses.
 */
export function startOutboxSender(client: RpcClient): () => void {
  const tab = thisTab();
  let stopped = false;
  let draining = false;
  let again = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stopping = new AbortController();
  const watchedTabs = new Set<string>();

  const schedule = (delay: number) => {
    clearTimeout(timer);
    timer = setTimeout(wake, Math.max(0, delay));
  };

  const drain = async () => {
    while (!stopped && !client.isClosed) {
      const { entry, recheckAt, blockedBy } = await claimNextEntry(tab);
      if (!entry) {
        if (recheckAt !== null) schedule(recheckAt - Date.now());
        for (const other of blockedBy) watchTab(other);
        return;
      }
      // A requeued entry waits for the next connection; this one is closing (or its token is refused).
      if ((await sendEntry(client, entry, tab)).kind === 'requeue') return;
    }
  };

  /** Another tab is sending a session's next entry: when that tab closes, take over at once. */
  function watchTab(other: string): void {
    if (other === tab || watchedTabs.has(other)) return;
    watchedTabs.add(other);
    void whenTabCloses(other, stopping.signal).then(() => {
      watchedTabs.delete(other);
      wake();
    });
  }

  function wake(): void {
    if (stopped) return;
    if (draining) {
      again = true;
      return;
    }
    draining = true;
    again = false;
    drain()
      .catch(() => schedule(STORAGE_RETRY_MS))
      .finally(() => {
        draining = false;
        if (again) wake();
      });
  }

  const unsubscribe = subscribeOutbox(wake);
  deleteExpiredSent(Date.now()).catch(() => {});
  wake();
  return () => {
    stopped = true;
    clearTimeout(timer);
    stopping.abort();
    unsubscribe();
  };
}
