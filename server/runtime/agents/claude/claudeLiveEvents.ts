import type { ClaudeMapped } from './claudeItems';
import { isRefusal } from './claudeToolItems';
import type { HostEvent } from './hostProtocol';
import { bashExitCode, resolvePersistedResult, toolResultText } from './toolResultText';

/** Events that carry no row still tell the runtime the turn is alive, at most this often (ACC-3). */
const ACTIVITY_INTERVAL_MS = 1000;
let lastActivity = 0;

/**
 * What the host says about one live SDK message (TL-1): items with their whole texts (the live
 * overlay keeps them and cuts what rows carry), a Bash call when Claude asks for it and its result
 * as a pointer and a size (OUT-7),
 * the closing text of the conversation for the settled row (SES-3).
 */
export function forwardLiveMessage(
  mapped: ClaudeMapped[],
  emit: (event: HostEvent) => void,
  lastSavedUuid: string | null = null,
): void {
  if (mapped.length === 0 && Date.now() - lastActivity >= ACTIVITY_INTERVAL_MS) {
    lastActivity = Date.now();
    emit({ type: 'activity' });
  }
  for (const entry of mapped) {
    if (entry.kind === 'item') {
      emit({
        type: 'item',
        item: entry.item,
        ...(entry.item.kind === 'turnEnd' && lastSavedUuid !== null ? { afterMessageUuid: lastSavedUuid } : {}),
      });
      if (entry.item.kind === 'agentText' && !entry.item.streaming && entry.item.parentItemId === null)
        emit({ type: 'text', text: entry.item.text });
    } else if (entry.kind === 'command') {
      emit({ type: 'commandStarted', itemId: entry.itemId, command: entry.command });
    } else if (entry.kind === 'commandResult') {
      const note = toolResultText(entry.content);
      const whole = resolvePersistedResult(note) ?? note;
      emit({
        type: 'command',
        itemId: entry.itemId,
        turnId: entry.turnId,
        command: entry.command,
        byteLength: Buffer.byteLength(whole, 'utf8'),
        exitCode: bashExitCode(whole, entry.isError),
        isError: entry.isError,
        ...(entry.isError && (entry.denied || isRefusal(whole)) ? { refusal: whole } : {}),
      });
    }
  }
}

/**
 * The uuid of a live message Claude keeps in the conversation's saved messages under the same
 * uuid (its own user and assistant messages, compaction boundaries), or null: the turn's record
 * goes after the last of them (TL-6). Stream events, status and the result are never saved.
 */
export function savedMessageUuid(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const message = raw as { type?: unknown; uuid?: unknown; subtype?: unknown; parent_tool_use_id?: unknown };
  if (typeof message.uuid !== 'string' || (message.parent_tool_use_id ?? null) !== null) return null;
  const kept =
    message.type === 'user' ||
    message.type === 'assistant' ||
    (message.type === 'system' && message.subtype === 'compact_boundary');
  return kept ? message.uuid : null;
}
