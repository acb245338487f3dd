/**
 * UX-9: what voice input does to the message text, apart from the browser: a recognised phrase
 * goes in at the caret, spaced from the words around it, and the caret ends after it; a failure
 * of the recognizer is said in words.
 */

export interface TextAtCaret {
  text: string;
  caret: number;
}

/** `phrase` put into `text` over `start`…`end` (the selection), with a space where words would touch. */
export function insertPhrase(text: string, start: number, end: number, phrase: string): TextAtCaret {
  const words = phrase.trim();
  if (words === '') return { text, caret: end };
  const before = text.slice(0, start);
  const after = text.slice(end);
  const lead = before !== '' && !/\s$/.test(before) ? ' ' : '';
  const trail = after !== '' && !/^\s/.test(after) ? ' ' : '';
  const inserted = `${lead}${words}${trail}`;
  return { text: before + inserted + after, caret: before.length + lead.length + words.length };
}

/** The Web Speech API's error codes, in words (SpeechRecognitionErrorEvent.error). */
export function speechErrorText(code: string): string {
  switch (code) {
    case 'not-allowed':
    case 'service-not-allowed':
      return 'Microphone permission was denied. Allow the microphone for this site to speak a message.';
    case 'audio-capture':
      return 'No microphone was found.';
    case 'no-speech':
      return 'No speech was heard.';
    case 'network':
      return "Speech recognition needs a network connection, and this device's is not working.";
    case 'language-not-supported':
      return 'Speech recognition does not support this language.';
    default:
      return `Speech recognition stopped: ${code}.`;
  }
}
