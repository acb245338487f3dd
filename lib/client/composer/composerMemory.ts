/**
 * What the composer remembers per session on this device (UX-3): the unsent draft, so it
 * survives a reload, and the messages sent from here, for ↑ recall. Kept in localStorage: small,
 * read synchronously before the first paint, and bounded here.
 */
const DRAFT_PREFIX = 'hbcode.draft.';
const SENT_PREFIX = 'hbcode.sent.';
/** Messages kept for recall per session, and the longest one kept. */
export const MAX_RECALLED = 50;
const MAX_KEPT_CHARS = 64 * 1024;

interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
  key(index: number): string | null;
  readonly length: number;
}

/** The browser's store; null where there is none or it refuses (a private window, storage off). */
function store(): KeyValueStore | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

/** A write that may fail (quota): the draft is a convenience, never worth an error on screen. */
function write(key: string, value: string | null, target: KeyValueStore | null = store()): void {
  try {
    if (value === null) target?.removeItem(key);
    else target?.setItem(key, value);
  } catch (e) {
    console.warn('Could not keep the draft on this device', e);
  }
}

export function readDraft(sessionId: string, target = store()): string {
  return target?.getItem(DRAFT_PREFIX + sessionId) ?? '';
}

/** Saves the draft; an empty one is removed. */
export function saveDraft(sessionId: string, text: string, target = store()): void {
  write(DRAFT_PREFIX + sessionId, text === '' || text.length > MAX_KEPT_CHARS ? null : text, target);
}

/** Messages sent from this device in the session, oldest first. */
export function readSent(sessionId: string, target = store()): string[] {
  const raw = target?.getItem(SENT_PREFIX + sessionId);
  if (!raw) return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.filter((m): m is string => typeof m === 'string') : [];
  } catch {
    return [];
  }
}

/** Records a sent message for recall (a repeat of the last one is not kept twice) and clears the draft. */
export function rememberSent(sessionId: string, text: string, target = store()): void {
  const sent = readSent(sessionId, target);
  if (text.length <= MAX_KEPT_CHARS && sent.at(-1) !== text) sent.push(text);
  write(SENT_PREFIX + sessionId, JSON.stringify(sent.slice(-MAX_RECALLED)), target);
  write(DRAFT_PREFIX + sessionId, null, target);
}

/** Forgets every draft and recalled message (signing out, DEV-1). */
export function forgetComposerMemory(target = store()): void {
  if (!target) return;
  const keys: string[] = [];
  for (let i = 0; i < target.length; i++) {
    const key = target.key(i);
    if (key?.startsWith(DRAFT_PREFIX) || key?.startsWith(SENT_PREFIX)) keys.push(key);
  }
  for (const key of keys) write(key, null, target);
}
