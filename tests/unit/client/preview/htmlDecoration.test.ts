import { describe, expect, it } from 'vitest';
import {
  decoratedPieces,
  HEAD_SEARCH_BYTES,
  isUtf8Html,
  planDecoration,
  type HtmlDecoration,
} from '../../../../lib/client/preview/htmlDecoration';

async function* inPieces(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.byteLength; at += size) yield bytes.subarray(at, at + size);
}

/** The whole decorated answer, the file arriving in pieces of `pieceSize` bytes (as verified chunks do). */
async function decorateHtml(
  bytes: Uint8Array,
  decoration: HtmlDecoration,
  pieceSize = 7,
): Promise<{ bytes: Uint8Array; utf8: boolean; size: number }> {
  const plan = planDecoration(bytes, bytes.byteLength, decoration);
  const parts: Uint8Array[] = [];
  for await (const piece of decoratedPieces(plan, inPieces(bytes, pieceSize))) parts.push(piece.slice());
  return { bytes: new Uint8Array(Buffer.concat(parts)), utf8: plan.utf8, size: plan.size };
}

const decoration = {
  theme: {
    '--hb-bg': '#111214',
    '--hb-mono': 'ui-monospace, Menlo, monospace',
    '--hb-evil': 'red}</style><script>x()</script>',
    '--not-hb': 'red',
  },
  navigationScript: 'NAV()',
};
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('PRV-4 HTML answers are changed in two places', () => {
  it('PRV-4 puts the theme style at the end of <head> and the navigation script after the document end', async () => {
    const source = new TextEncoder().encode(
      '<!doctype html><html><HEAD><title>é</title></HEAD><body>x</body></html>\n',
    );
    const copy = source.slice();
    const { bytes, utf8, size } = await decorateHtml(source, decoration, source.byteLength);
    expect(utf8).toBe(true);
    expect(size).toBe(bytes.byteLength);
    expect(text(bytes)).toBe(
      '<!doctype html><html><HEAD><title>é</title><style id="hb-theme">:root{--hb-bg:#111214;--hb-mono:ui-monospace, Menlo, monospace}</style></HEAD><body>x</body></html>\n<script>NAV()</script>',
    );
    expect(source).toEqual(copy);
  });

  it('PRV-4 a theme value that could end the style element is dropped, and only --hb-* names pass', async () => {
    const out = text((await decorateHtml(new TextEncoder().encode('<head></head>'), decoration)).bytes);
    expect(out).not.toContain('--hb-evil');
    expect(out).not.toContain('--not-hb');
    expect(out.match(/<script>/g)).toHaveLength(1);
  });

  it('PRV-4 no theme without a head; the script still follows the end', async () => {
    const { bytes } = await decorateHtml(new TextEncoder().encode('<p>no head</p>'), decoration);
    expect(text(bytes)).toBe('<p>no head</p><script>NAV()</script>');
  });

  it('PRV-4 no theme when the document is not UTF-8 (declared otherwise, invalid bytes, UTF-16)', async () => {
    const latin1 = new Uint8Array([...new TextEncoder().encode('<head><meta charset="iso-8859-1"></head>'), 0xe9]);
    expect(isUtf8Html(latin1)).toBe(false);
    expect(text((await decorateHtml(latin1, decoration, latin1.byteLength)).bytes)).not.toContain('hb-theme');
    const invalid = new Uint8Array([...new TextEncoder().encode('<head></head>'), 0xff, 0xfe, 0x41]);
    const decoratedInvalid = await decorateHtml(invalid, decoration, invalid.byteLength);
    expect(decoratedInvalid.utf8).toBe(false);
    expect(Array.from(decoratedInvalid.bytes.subarray(0, invalid.length))).toEqual(Array.from(invalid));
    const utf16 = new Uint8Array([0xff, 0xfe, 0x3c, 0x00]);
    expect((await decorateHtml(utf16, decoration)).bytes).toEqual(utf16);
  });

  it('PRV-4 SEC-9 the style lands at `</head>` whichever piece it falls in, and the answer length is known up front', async () => {
    const source = new TextEncoder().encode(
      '<html><head><title>ü long title</title></head><body>' + 'x'.repeat(100) + '</body></html>',
    );
    const whole = await decorateHtml(source, decoration, source.byteLength);
    for (const pieceSize of [1, 2, 3, 13, 29, 64]) {
      const pieced = await decorateHtml(source, decoration, pieceSize);
      expect(text(pieced.bytes), `pieces of ${pieceSize}`).toBe(text(whole.bytes));
      expect(pieced.size).toBe(pieced.bytes.byteLength);
    }
  });

  it('SEC-9 `</head>` and the charset are looked for only in a bounded prefix', () => {
    const far = new Uint8Array(HEAD_SEARCH_BYTES + 100).fill(0x20);
    far.set(new TextEncoder().encode('</head>'), HEAD_SEARCH_BYTES + 10);
    expect(planDecoration(far, far.byteLength + 1_000_000, decoration).styleAt).toBeNull();
    const near = new Uint8Array(4096).fill(0x20);
    near.set(new TextEncoder().encode('</head>'), 1000);
    // A prefix of a much longer file: a UTF-8 sequence cut at its end does not make it "not UTF-8".
    const cut = new Uint8Array([...near, 0xc3]);
    const plan = planDecoration(cut, 300 * 1024 * 1024, decoration);
    expect(plan).toMatchObject({ utf8: true, styleAt: 1000 });
    expect(plan.size).toBe(300 * 1024 * 1024 + plan.style.byteLength + plan.script.byteLength);
  });
});
