import { describe, expect, it } from 'vitest';
import {
  commandText,
  matchingCommands,
  MAX_SHOWN_COMMANDS,
  slashQuery,
} from '../../../lib/client/composer/slashCommands';
import { insertPhrase, speechErrorText } from '../../../lib/client/composer/speechText';

describe('UX-9 a recognised phrase in the message text', () => {
  it('UX-9 goes in at the caret with a space where words would touch, the caret after it', () => {
    expect(insertPhrase('', 0, 0, 'hello')).toEqual({ text: 'hello', caret: 5 });
    expect(insertPhrase('echo', 4, 4, ' hello world ')).toEqual({ text: 'echo hello world', caret: 16 });
    expect(insertPhrase('echo world', 4, 4, 'big')).toEqual({ text: 'echo big world', caret: 8 });
    expect(insertPhrase('echo  world', 5, 5, 'big')).toEqual({ text: 'echo big world', caret: 8 });
    expect(insertPhrase('fix the bug', 4, 7, 'a')).toEqual({ text: 'fix a bug', caret: 5 });
    expect(insertPhrase('keep', 2, 2, '   ')).toEqual({ text: 'keep', caret: 2 });
  });

  it('UX-9 says a denied microphone and other failures in words', () => {
    expect(speechErrorText('not-allowed')).toContain('Microphone permission was denied');
    expect(speechErrorText('service-not-allowed')).toContain('Microphone permission was denied');
    expect(speechErrorText('audio-capture')).toBe('No microphone was found.');
    expect(speechErrorText('no-speech')).toBe('No speech was heard.');
    expect(speechErrorText('bad-grammar')).toBe('Speech recognition stopped: bad-grammar.');
  });
});

describe('UX-10 the slash-command list', () => {
  const commands = [
    { name: 'review', description: 'Review' },
    { name: 'compact', description: 'Compact', argumentHint: '<instructions>' },
    { name: 'code-review', description: 'Code review' },
    { name: 'prompts:Copy', description: 'Saved prompt' },
  ];

  it('UX-10 is open while the message is one word starting with /', () => {
    expect(slashQuery('/')).toBe('');
    expect(slashQuery('/comp')).toBe('comp');
    expect(slashQuery('/comp ')).toBeNull();
    expect(slashQuery(' /comp')).toBeNull();
    expect(slashQuery('say /comp')).toBeNull();
    expect(slashQuery('/a\nb')).toBeNull();
  });

  it('UX-10 offers names starting with the typed text first, then names holding it, in any case', () => {
    expect(matchingCommands(commands, '').map((c) => c.name)).toEqual([
      'review',
      'compact',
      'code-review',
      'prompts:Copy',
    ]);
    expect(matchingCommands(commands, 'co').map((c) => c.name)).toEqual(['compact', 'code-review', 'prompts:Copy']);
    expect(matchingCommands(commands, 'REV').map((c) => c.name)).toEqual(['review', 'code-review']);
    expect(matchingCommands(commands, 'zzz')).toEqual([]);
    const many = Array.from({ length: 80 }, (_, i) => ({ name: `c${i}`, description: '' }));
    expect(matchingCommands(many, 'c')).toHaveLength(MAX_SHOWN_COMMANDS);
  });

  it('UX-10 a chosen command fills the message with its name and a space', () => {
    expect(commandText(commands[1]!)).toBe('/compact ');
  });
});
