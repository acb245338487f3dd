import { describe, expect, it } from 'vitest';
import { decorateHtml, isUtf8Html } from '../../../../lib/client/preview/htmlDecoration';

const decoration = { theme: { '--hb-bg': '#111214', '--hb-mono': 'ui-monospace, Menlo, monospace', '--hb-evil': 'red}</style><script>x()</script>', '--not-hb': 'red' }, navigationScript: 'NAV()' };
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('PRV-4 HTML answers are changed in two places', () => {
  it('PRV-4 puts the theme style at the end of <head> and the navigation script after the document end', () => {
    const source = new TextEncoder().encode('<!doctype html><html><HEAD><title>é</title></HEAD><body>x</body></html>\n');
    const copy = source.slice();
    const { bytes, utf8 } = decorateHtml(source, decoration);
    expect(utf8).toBe(true);
    expect(text(bytes)).toBe(
      '<!doctype html><html><HEAD><title>é</title><style id="hb-theme">:root{--hb-bg:#111214;--hb-mono:ui-monospace, Menlo, monospace}</style></HEAD><body>x</body></html>\n<script>NAV()</script>',
    );
    expect(source).toEqual(copy);
  });

  it('PRV-4 a theme value that could end the style element is dropped, and only --hb-* names pass', () => {
    const out = text(decorateHtml(new TextEncoder().encode('<head></head>'), decoration).bytes);
    expect(out).not.toContain('--hb-evil');
    expect(out).not.toContain('--not-hb');
    expect(out.match(/<script>/g)).toHaveLength(1);
  });

  it('PRV-4 no theme without a head; the script still follows the end', () => {
    const { bytes } = decorateHtml(new TextEncoder().encode('<p>no head</p>'), decoration);
    expect(text(bytes)).toBe('<p>no head</p><script>NAV()</script>');
  });

  it('PRV-4 no theme when the document is not UTF-8 (declared otherwise, invalid bytes, UTF-16)', () => {
    const latin1 = new Uint8Array([...new TextEncoder().encode('<head><meta charset="iso-8859-1"></head>'), 0xe9]);
    expect(isUtf8Html(latin1)).toBe(false);
    expect(text(decorateHtml(latin1, decoration).bytes)).not.toContain('hb-theme');
    const invalid = new Uint8Array([...new TextEncoder().encode('<head></head>'), 0xff, 0xfe, 0x41]);
    expect(decorateHtml(invalid, decoration).utf8).toBe(false);
    expect(Array.from(decorateHtml(invalid, decoration).bytes.subarray(0, invalid.length))).toEqual(Array.from(invalid));
    const utf16 = new Uint8Array([0xff, 0xfe, 0x3c, 0x00]);
    expect(decorateHtml(utf16, decoration).bytes).toEqual(utf16);
  });
});
