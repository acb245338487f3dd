/**
 * Where the output viewer opens a finished command (UX-1): at its end by default, where a
 * terminal leaves the person (the result, the error), or at its start when this device asks for
 * it in Settings. Kept per device in localStorage; a browser without it gets the default.
 */
import { useSyncExternalStore } from 'react';

const KEY = 'hbcode.output.finishedOpensAt';
export type FinishedOutputStart = 'end' | 'start';
const listeners = new Set<() => void>();

export function finishedOutputStart(): FinishedOutputStart {
  try {
    return typeof localStorage !== 'undefined' && localStorage.getItem(KEY) === 'start' ? 'start' : 'end';
  } catch {
    return 'end';
  }
}

export function setFinishedOutputStart(place: FinishedOutputStart): void {
  try {
    if (place === 'end') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, place);
  } catch {
    // NOTE: storage refused (a private window): the choice lasts until the page goes.
  }
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key === KEY) listener();
  };
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
  };
}

export function useFinishedOutputStart(): FinishedOutputStart {
  return useSyncExternalStore(subscribe, finishedOutputStart, () => 'end');
}
