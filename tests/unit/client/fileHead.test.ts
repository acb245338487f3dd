import { describe, expect, it } from 'vitest';
import { headOf } from '../../../components/files/fileHead';
import type { VerifiedChunk } from '../../../lib/client/verifiedChunks';

// PERF-6: a large source file shows its first whole lines while the rest is read; the whole
// file's text must start with exactly what was shown, so its highlighting carries on.

function chunk(text: string | Uint8Array, mimeType = 'text/plain', size = 1_000_000): VerifiedChunk {
  const data = typeof text === 'string' ? new TextEncoder().encode(text) : text;
  return {
    data,
    header: {
      offset: 0,
      nextOffset: data.byteLength,
      byteCount: data.byteLength,
      size,
      contentVersion: 'v1',
      modifiedAt: 0,
      mimeType,
      sha256: '',
    },
  };
}

describe('PERF-6 a source file’s first chunk as whole lines', () => {
  it('PERF-6 keeps every whole line and drops the cut last one, for LF and CRLF', () => {
    expect(headOf(chunk('const a = 1;\nconst b = 2;\nconst c'), 'x.ts')).toEqual({
      kind: 'source',
      text: 'const a = 1;\nconst b = 2;',
    });
    expect(headOf(chunk('a();\r\nb();\r\nc('), 'x.ts')).toEqual({ kind: 'source', text: 'a();\r\nb();' });
  });

  it('PERF-6 a character cut at the chunk’s end is never shown: the head is a prefix of the whole text', () => {
    const whole = 'const s = "été";\nconst t = "€";\n';
    const bytes = new TextEncoder().encode(whole);
    const cut = bytes.slice(0, bytes.length - 3); // inside the euro sign's three bytes
    const head = headOf(chunk(cut), 'x.ts');
    expect(head?.text).toBe('const s = "été";');
    expect(whole.startsWith(head!.text)).toBe(true);
  });

  it('PERF-6 HTML shows its head as source; Markdown, images and files past the text limit do not', () => {
    expect(headOf(chunk('<p>a</p>\n<p>b', 'text/html'), 'x.html')?.kind).toBe('html');
    expect(headOf(chunk('# a\nb', 'text/markdown'), 'x.md')).toBeNull();
    expect(headOf(chunk('\u0089PNG\n', 'image/png'), 'x.png')).toBeNull();
    expect(headOf(chunk('a\nb', 'text/plain', 64 * 1024 * 1024), 'x.ts')).toBeNull();
    expect(headOf(chunk('no line break at all'), 'x.ts')).toBeNull();
  });
});
