import { describe, expect, it } from 'vitest';
import { caretAtStart, NOT_RECALLING, recallNewer, recallOlder } from '../../../lib/client/composer/messageRecall';
import {
  forgetComposerMemory,
  MAX_RECALLED,
  readDraft,
  readSent,
  rememberSent,
  saveDraft,
} from '../../../lib/client/composer/composerMemory';

/** A Storage in memory, with the methods the composer's memory uses. */
function memoryStore() {
  const items = new Map<string, string>();
  return {
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
    key: (index: number) => [...items.keys()][index] ?? null,
    get length() {
      return items.size;
    },
  };
}

describe('UX-3 ↑ recall of earlier messages', () => {
  const sent = ['ls', 'make test', 'git status'];

  it('UX-3 ↑ walks to older messages, ↓ back, and past the newest gives the draft back', () => {
    let step = recallOlder(NOT_RECALLING, 'half typed', sent)!;
    expect(step.text).toBe('git status');
    step = recallOlder(step.state, step.text, sent)!;
    expect(step.text).toBe('make test');
    step = recallOlder(step.state, step.text, sent)!;
    expect(step.text).toBe('ls');
    expect(recallOlder(step.state, step.text, sent)).toBeNull();
    step = recallNewer(step.state, sent)!;
    expect(step.text).toBe('make test');
    step = recallNewer(step.state, sent)!;
    step = recallNewer(step.state, sent)!;
    expect(step).toEqual({ state: NOT_RECALLING, text: 'half typed' });
    expect(recallNewer(step.state, sent)).toBeNull();
  });

  it('UX-3 nothing to recall without earlier messages', () => {
    expect(recallOlder(NOT_RECALLING, '', [])).toBeNull();
  });

  it('UX-3 ↑ starts recalling only with the caret at the very start or in an empty box', () => {
    expect(caretAtStart({ value: '', selectionStart: 0, selectionEnd: 0 })).toBe(true);
    expect(caretAtStart({ value: 'a\nb', selectionStart: 0, selectionEnd: 0 })).toBe(true);
    expect(caretAtStart({ value: 'a\nb', selectionStart: 2, selectionEnd: 2 })).toBe(false);
    expect(caretAtStart({ value: 'ab', selectionStart: 0, selectionEnd: 2 })).toBe(false);
  });
});

describe('UX-3 the composer remembers drafts and sent messages per session', () => {
  it('UX-3 a draft is kept per session and cleared when sent', () => {
    const store = memoryStore();
    saveDraft('a', 'line one\nline two', store);
    saveDraft('b', 'other', store);
    expect(readDraft('a', store)).toBe('line one\nline two');
    rememberSent('a', 'line one\nline two', store);
    expect(readDraft('a', store)).toBe('');
    expect(readDraft('b', store)).toBe('other');
    expect(readSent('a', store)).toEqual(['line one\nline two']);
  });

  it('UX-3 recall keeps the newest messages, bounded, without repeating the last one', () => {
    const store = memoryStore();
    for (let n = 0; n < MAX_RECALLED + 10; n++) rememberSent('a', `m${n}`, store);
    rememberSent('a', `m${MAX_RECALLED + 9}`, store);
    const kept = readSent('a', store);
    expect(kept).toHaveLength(MAX_RECALLED);
    expect(kept.at(-1)).toBe(`m${MAX_RECALLED + 9}`);
    expect(kept[0]).toBe('m10');
  });

  it('UX-3 a damaged record reads as nothing, and signing out forgets everything', () => {
    const store = memoryStore();
    store.setItem('hbcode.sent.a', '{not json');
    expect(readSent('a', store)).toEqual([]);
    saveDraft('a', 'x', store);
    store.setItem('unrelated', 'kept');
    forgetComposerMemory(store);
    expect(readDraft('a', store)).toBe('');
    expect(store.getItem('unrelated')).toBe('kept');
  });
});
