import { describe, expect, it } from 'vitest';
import { decodeToolOutput, MAX_ENVELOPE_DEPTH } from '../../../../server/runtime/agents/toolOutputEnvelope';

/** `text` inside `levels` JSON envelopes, each one a string holding the next. */
function wrapped(text: string, levels: number): string {
  let value: string = text;
  for (let i = 0; i < levels; i += 1) value = JSON.stringify({ output: value });
  return value;
}

describe('TL-2 tool results in JSON envelopes', () => {
  it('TL-2 a plain string stays as it is', () => {
    expect(decodeToolOutput('hello\nworld')).toEqual({ text: 'hello\nworld', transport: null });
  });

  it('TL-2 envelopes are unwrapped up to six levels deep, and no deeper', () => {
    expect(MAX_ENVELOPE_DEPTH).toBe(6);
    expect(decodeToolOutput(wrapped('the result', 6))).toEqual({ text: 'the result', transport: null });
    const seven = decodeToolOutput(wrapped('the result', 7));
    expect(seven.text).not.toBe('the result');
    expect(seven.text).toContain('the result');
    expect(JSON.parse(seven.text)).toEqual({ output: 'the result' });
  });

  it('TL-2 content-block lists become their text; other blocks their type in brackets', () => {
    const mcp = {
      content: [
        { type: 'text', text: 'first' },
        { type: 'image', data: 'AAAA' },
        { type: 'text', text: 'second' },
      ],
      structuredContent: null,
      _meta: null,
    };
    expect(decodeToolOutput(mcp)).toEqual({ text: 'first\n[image]\nsecond', transport: null });
    expect(
      decodeToolOutput([
        { type: 'input_text', text: 'a' },
        { type: 'input_text', text: JSON.stringify({ result: 'b' }) },
      ]).text,
    ).toBe('a\nb');
  });

  it('TL-2 a nested object is command transport only when it has transport fields', () => {
    const transport = decodeToolOutput(
      JSON.stringify({
        result: JSON.stringify({ stdout: 'out\n', stderr: 'err\n', exit_code: 2, wall_time_seconds: 0.5 }),
      }),
    );
    expect(transport).toEqual({
      text: 'out\nerr\n',
      transport: { stdout: 'out\n', stderr: 'err\n', exitCode: 2, wallTimeSeconds: 0.5 },
    });
    // An object that merely has an `output` is an envelope, not transport.
    expect(decodeToolOutput({ output: 'just text' })).toEqual({ text: 'just text', transport: null });
    // Legacy exec envelopes keep the exit code in their metadata.
    expect(
      decodeToolOutput(JSON.stringify({ output: 'listing', metadata: { exit_code: 0, duration_seconds: 0.1 } })),
    ).toEqual({ text: 'listing', transport: { exitCode: 0 } });
  });

  it('TL-2 an object with fields of its own is shown as JSON, not guessed at', () => {
    const value = { path: 'a.ts', lines: 3 };
    expect(decodeToolOutput(value)).toEqual({ text: JSON.stringify(value, null, 2), transport: null });
  });

  it('TL-1 a truncated envelope is shown as the raw text it is', () => {
    const cut = wrapped('the result', 2).slice(0, 20);
    expect(decodeToolOutput(cut)).toEqual({ text: cut, transport: null });
    expect(decodeToolOutput({ output: cut }).text).toBe(cut);
  });

  it('TL-2 Claude-style results too: a JSON string literal, a tool reference, a data wrapper, envelopes in text blocks', () => {
    expect(decodeToolOutput('"quoted"')).toEqual({ text: 'quoted', transport: null });
    expect(decodeToolOutput([{ type: 'tool_reference', tool_name: 'Grep' }]).text).toBe('Grep');
    expect(decodeToolOutput({ data: JSON.stringify({ result: 'inner' }) }).text).toBe('inner');
    expect(
      decodeToolOutput([{ type: 'text', text: JSON.stringify({ output: { stdout: 'out', exit_code: 0 } }) }]).text,
    ).toBe('out');
  });

  it('TL-2 numbers, booleans and null become text', () => {
    expect(decodeToolOutput(42).text).toBe('42');
    expect(decodeToolOutput(null).text).toBe('null');
    expect(decodeToolOutput(undefined).text).toBe('');
  });
});

/** `value` wrapped `depth` times, alternately as JSON text and as an `{output: …}` object. */
function wrappedMixed(value: unknown, depth: number): unknown {
  let current = value;
  for (let i = 0; i < depth; i++) current = i % 2 === 0 ? JSON.stringify({ output: current }) : { output: current };
  return current;
}

describe('tool output envelopes as Claude sends them (TL-2)', () => {
  it('TL-2 unwraps up to six levels of JSON text and wrapper objects to the text inside', () => {
    expect(decodeToolOutput(wrappedMixed('the text', 6))).toEqual({ text: 'the text', transport: null });
    expect(
      decodeToolOutput({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toEqual({ text: 'a\nb', transport: null });
    expect(decodeToolOutput('"quoted"')).toEqual({ text: 'quoted', transport: null });
  });

  it('TL-2 stops after six levels and shows what is left as it is', () => {
    const deep = decodeToolOutput(wrappedMixed('the text', 8));
    expect(deep.text).not.toBe('the text');
    expect(deep.text).toContain('the text');
  });

  it('TL-2 a nested object is command transport only when it has transport fields', () => {
    expect(
      decodeToolOutput(
        JSON.stringify({ output: { stdout: 'out', stderr: 'err', exit_code: 2, wall_time_seconds: 1.5 } }),
      ),
    ).toEqual({
      text: 'out\nerr',
      transport: { stdout: 'out', stderr: 'err', exitCode: 2, wallTimeSeconds: 1.5 },
    });
    const data = { output: { files: ['a.ts'], count: 1 } };
    expect(decodeToolOutput(data)).toEqual({
      text: JSON.stringify({ files: ['a.ts'], count: 1 }, null, 2),
      transport: null,
    });
  });

  it('TL-2 a truncated envelope is not JSON and stays the raw text', () => {
    const truncated = JSON.stringify({ output: 'x'.repeat(100) }).slice(0, 50);
    expect(decodeToolOutput(truncated)).toEqual({ text: truncated, transport: null });
  });
});

describe('tool output envelopes in content blocks (TL-2)', () => {
  it('TL-2 JSON text inside a text block is unwrapped too', () => {
    expect(decodeToolOutput([{ type: 'text', text: JSON.stringify({ result: 'inner' }) }])).toEqual({
      text: 'inner',
      transport: null,
    });
  });
});
