import { describe, expect, it } from 'vitest';
import { decodeToolOutput } from '../../../../server/runtime/agents/toolOutputEnvelope';

/** `value` wrapped `depth` times, alternately as JSON text and as an `{output: …}` object. */
function wrapped(value: unknown, depth: number): unknown {
  let current = value;
  for (let i = 0; i < depth; i++) current = i % 2 === 0 ? JSON.stringify({ output: current }) : { output: current };
  return current;
}

describe('tool output envelopes (TL-2)', () => {
  it('TL-2 unwraps up to six levels of JSON text and wrapper objects to the text inside', () => {
    expect(decodeToolOutput(wrapped('the text', 6))).toEqual({ text: 'the text', transport: null });
    expect(decodeToolOutput({ content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] })).toEqual({ text: 'a\nb', transport: null });
    expect(decodeToolOutput('"quoted"')).toEqual({ text: 'quoted', transport: null });
  });

  it('TL-2 stops after six levels and shows what is left as it is', () => {
    const deep = decodeToolOutput(wrapped('the text', 8));
    expect(deep.text).not.toBe('the text');
    expect(deep.text).toContain('the text');
  });

  it('TL-2 a nested object is command transport only when it has transport fields', () => {
    expect(decodeToolOutput(JSON.stringify({ output: { stdout: 'out', stderr: 'err', exit_code: 2, wall_time_seconds: 1.5 } }))).toEqual({
      text: 'out\nerr',
      transport: { stdout: 'out', stderr: 'err', exitCode: 2, wallTimeSeconds: 1.5 },
    });
    const data = { output: { files: ['a.ts'], count: 1 } };
    expect(decodeToolOutput(data)).toEqual({ text: JSON.stringify({ files: ['a.ts'], count: 1 }, null, 2), transport: null });
  });

  it('TL-2 a truncated envelope is not JSON and stays the raw text', () => {
    const truncated = JSON.stringify({ output: 'x'.repeat(100) }).slice(0, 50);
    expect(decodeToolOutput(truncated)).toEqual({ text: truncated, transport: null });
  });
});

describe('tool output envelopes in content blocks (TL-2)', () => {
  it('TL-2 JSON text inside a text block is unwrapped too', () => {
    expect(decodeToolOutput([{ type: 'text', text: JSON.stringify({ result: 'inner' }) }])).toEqual({ text: 'inner', transport: null });
  });
});
