/**
 * ↑ and ↓ through the messages sent earlier (UX-3), like a shell's history: ↑ from the draft
 * keeps it aside and shows the newest message, further ↑ older ones; ↓ walks back and, past the
 * newest, gives the draft back.
 */
export interface RecallState {
  /** Index into the sent messages being shown; null while the user edits their own draft. */
  index: number | null;
  /** The draft put aside by the first ↑. */
  draft: string;
}

export const NOT_RECALLING: RecallState = { index: null, draft: '' };

export function recallOlder(
  state: RecallState,
  current: string,
  sent: readonly string[],
): { state: RecallState; text: string } | null {
  if (sent.length === 0) return null;
  if (state.index === null) return { state: { index: sent.length - 1, draft: current }, text: sent.at(-1)! };
  if (state.index === 0) return null;
  return { state: { ...state, index: state.index - 1 }, text: sent[state.index - 1]! };
}

export function recallNewer(state: RecallState, sent: readonly string[]): { state: RecallState; text: string } | null {
  if (state.index === null) return null;
  if (state.index >= sent.length - 1) return { state: NOT_RECALLING, text: state.draft };
  return { state: { ...state, index: state.index + 1 }, text: sent[state.index + 1]! };
}

/** ↑ starts recalling only from the very start of the box (or an empty one), so it never steals caret moves between lines. */
export function caretAtStart(box: { selectionStart: number; selectionEnd: number; value: string }): boolean {
  return box.value === '' || (box.selectionStart === 0 && box.selectionEnd === 0);
}
