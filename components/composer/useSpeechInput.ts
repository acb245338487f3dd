'use client';
import { useCallback, useEffect, useRef, useState } from 'react';
import { speechErrorText } from '../../lib/client/composer/speechText';

/** The part of the Web Speech API's recognizer the composer uses (the DOM typings have none). */
interface SpeechRecognizer {
  lang: string;
  continuous: boolean;
  interimResults: boolean;
  onresult: ((event: { resultIndex: number; results: SpeechRecognitionResultList }) => void) | null;
  onerror: ((event: { error: string }) => void) | null;
  onend: (() => void) | null;
  start(): void;
  stop(): void;
  abort(): void;
}
type RecognizerClass = new () => SpeechRecognizer;

/** The browser's recognizer: the standard name, else Chromium's and Safari's prefixed one. */
function recognizerClass(): RecognizerClass | null {
  const scope = window as unknown as { SpeechRecognition?: RecognizerClass; webkitSpeechRecognition?: RecognizerClass };
  return scope.SpeechRecognition ?? scope.webkitSpeechRecognition ?? null;
}

export type SpeechState =
  { kind: 'idle' } | { kind: 'listening'; interim: string } | { kind: 'stopped' } | { kind: 'error'; message: string };

/**
 * Voice input for the composer (UX-9): `supported` is false where the browser has no speech
 * recognition. While listening, each final phrase goes to `onPhrase` (never sent) and the words
 * still being recognised are in `state.interim`. Listening ends on `stop`, a failure, or the page
 * being hidden.
 */
export function useSpeechInput(onPhrase: (phrase: string) => void) {
  const [supported, setSupported] = useState(false);
  const [state, setState] = useState<SpeechState>({ kind: 'idle' });
  const recognizer = useRef<SpeechRecognizer | null>(null);
  const phrase = useRef(onPhrase);
  phrase.current = onPhrase;

  useEffect(() => setSupported(recognizerClass() !== null), []);

  const stop = useCallback(() => recognizer.current?.stop(), []);

  const start = useCallback(() => {
    const Recognizer = recognizerClass();
    if (!Recognizer || recognizer.current) return;
    const listening = new Recognizer();
    listening.lang = navigator.language;
    listening.continuous = true;
    listening.interimResults = true;
    let failed = false;
    listening.onresult = (event) => {
      let interim = '';
      for (let i = event.resultIndex; i < event.results.length; i += 1) {
        const result = event.results[i]!;
        const words = result[0]?.transcript ?? '';
        if (result.isFinal) phrase.current(words);
        else interim += words;
      }
      setState({ kind: 'listening', interim });
    };
    listening.onerror = (event) => {
      // `aborted` is our own stop (the page hid, the composer went).
      if (event.error === 'aborted') return;
      failed = true;
      setState({ kind: 'error', message: speechErrorText(event.error) });
    };
    listening.onend = () => {
      if (recognizer.current === listening) recognizer.current = null;
      if (!failed) setState({ kind: 'stopped' });
    };
    recognizer.current = listening;
    setState({ kind: 'listening', interim: '' });
    try {
      listening.start();
    } catch (error) {
      recognizer.current = null;
      setState({ kind: 'error', message: speechErrorText(error instanceof Error ? error.message : String(error)) });
    }
  }, []);

  useEffect(() => {
    const hidden = () => {
      if (document.visibilityState === 'hidden') recognizer.current?.stop();
    };
    const leaving = () => recognizer.current?.stop();
    document.addEventListener('visibilitychange', hidden);
    window.addEventListener('pagehide', leaving);
    return () => {
      document.removeEventListener('visibilitychange', hidden);
      window.removeEventListener('pagehide', leaving);
      const current = recognizer.current;
      recognizer.current = null;
      current?.abort();
    };
  }, []);

  /** The status line goes once the message it was for is sent. */
  const reset = useCallback(
    () => setState((current) => (current.kind === 'listening' ? current : { kind: 'idle' })),
    [],
  );

  return { supported, state, start, stop, reset };
}
