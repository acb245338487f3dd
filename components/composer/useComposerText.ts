'use client';
import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { readDraft, readSent, rememberSent, saveDraft } from '../../lib/client/composer/composerMemory';
import {
  caretAtStart,
  NOT_RECALLING,
  recallNewer,
  recallOlder,
  type RecallState,
} from '../../lib/client/composer/messageRecall';

/** A touch screen's keyboard has no Shift+Enter: there, return adds a line and Send sends (UX-3). */
export function useCoarsePointer(): boolean {
  const [coarse, setCoarse] = useState(false);
  useEffect(() => {
    const query = window.matchMedia('(pointer: coarse)');
    setCoarse(query.matches);
    const onChange = () => setCoarse(query.matches);
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);
  return coarse;
}

/**
 * The composer's text (UX-3): restored from the session's saved draft, saved as it changes,
 * cleared and remembered for ↑ recall once sent. `onRecallKey` handles ↑ and ↓; it answers
 * whether it used the key.
 */
export function useComposerText(sessionId: string) {
  const [text, setTextState] = useState(() => readDraft(sessionId));
  const recall = useRef<RecallState>(NOT_RECALLING);

  const setText = useCallback(
    (next: string | ((current: string) => string)) => {
      setTextState((current) => {
        const value = typeof next === 'function' ? next(current) : next;
        saveDraft(sessionId, value);
        return value;
      });
    },
    [sessionId],
  );

  /** Typing leaves recall: the text is the user's own draft from then on. */
  const edit = useCallback(
    (value: string) => {
      recall.current = NOT_RECALLING;
      setText(value);
    },
    [setText],
  );

  const sent = useCallback(
    (message: string) => {
      recall.current = NOT_RECALLING;
      rememberSent(sessionId, message);
      setTextState('');
    },
    [sessionId],
  );

  function onRecallKey(event: KeyboardEvent<HTMLTextAreaElement>): boolean {
    const box = event.currentTarget;
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return false;
    // While a recalled message is shown unchanged, ↑ and ↓ keep walking wherever the caret is.
    const recalling = recall.current.index !== null;
    const step =
      event.key === 'ArrowUp' && (recalling || caretAtStart(box))
        ? recallOlder(recall.current, box.value, readSent(sessionId))
        : event.key === 'ArrowDown' && recalling
          ? recallNewer(recall.current, readSent(sessionId))
          : null;
    if (!step) return false;
    event.preventDefault();
    recall.current = step.state;
    setText(step.text);
    // The caret goes to the end of the recalled text, ready for ↓ or more typing.
    requestAnimationFrame(() => box.setSelectionRange(box.value.length, box.value.length));
    return true;
  }

  return { text, setText, edit, sent, onRecallKey };
}
