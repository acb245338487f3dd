'use client';
import { Mic, MicOff } from 'lucide-react';
import type { SpeechState } from './useSpeechInput';

const icon = { size: 22, strokeWidth: 2, 'aria-hidden': true, focusable: false } as const;

/** UX-9: the microphone button; pressed while listening. */
export function VoiceButton({
  state,
  onStart,
  onStop,
}: {
  state: SpeechState;
  onStart: () => void;
  onStop: () => void;
}) {
  const listening = state.kind === 'listening';
  return (
    <button
      type="button"
      className={listening ? 'voice-button listening' : 'voice-button'}
      aria-label={listening ? 'Stop voice input' : 'Voice input'}
      title={listening ? 'Stop voice input' : 'Voice input'}
      aria-pressed={listening}
      onClick={listening ? onStop : onStart}
    >
      {listening ? <MicOff {...icon} /> : <Mic {...icon} />}
    </button>
  );
}

/** UX-9: what voice input is doing, in words, with the words still being recognised. */
export function VoiceStatus({ state }: { state: SpeechState }) {
  if (state.kind === 'idle') return null;
  if (state.kind === 'error') {
    return (
      <p className="voice-status error" role="alert" data-voice="error">
        {state.message}
      </p>
    );
  }
  return (
    <p className="voice-status muted" role="status" data-voice={state.kind}>
      {state.kind === 'listening' ? (
        <>
          <span className="voice-dot" aria-hidden="true" /> Listening…
          {state.interim && <q className="voice-interim">{state.interim}</q>}
        </>
      ) : (
        'Voice input stopped. Edit the text if needed, then send it.'
      )}
    </p>
  );
}
