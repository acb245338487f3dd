import { describe, expect, it } from 'vitest';
import { applySgr, sgrNumbers } from '../../../lib/terminal/ansi';

describe('ANSI colours (PWA-2, UX-2)', () => {
  it('PWA-2 SGR colours and attributes become a style', () => {
    expect(applySgr({}, [1, 31])).toEqual({ bold: true, fg: 'var(--ansi-red)' });
    expect(applySgr({}, [3, 4, 7, 2])).toEqual({ italic: true, underline: true, inverse: true, dim: true });
  });

  it('PWA-2 256-colour and true-colour forms, bright colours and resets', () => {
    expect(applySgr({}, [38, 5, 196]).fg).toBe('rgb(255,0,0)');
    expect(applySgr({}, [38, 5, 9]).fg).toBe('var(--ansi-bright-red)');
    expect(applySgr({}, [48, 2, 1, 2, 3]).bg).toBe('rgb(1,2,3)');
    expect(applySgr({}, [94]).fg).toBe('var(--ansi-bright-blue)');
    expect(applySgr({ fg: 'x', bold: true }, [39])).toEqual({ bold: true });
    expect(applySgr({ fg: 'x', bold: true }, [])).toEqual({});
    // An invalid extended colour is ignored, not rendered.
    expect(applySgr({}, [38, 2, 999, 0, 0]).fg).toBeUndefined();
  });

  it('UX-2 semicolon and colon forms of extended colours give the same numbers', () => {
    expect(sgrNumbers(['38', '5', '208'], undefined)).toEqual([38, 5, 208]);
    expect(sgrNumbers([], [['38', '5', '208']])).toEqual([38, 5, 208]);
    expect(sgrNumbers([], [['38', '2', '', '1', '2', '3']])).toEqual([38, 2, 1, 2, 3]);
    expect(sgrNumbers([], [['48', '2', '1', '2', '3']])).toEqual([48, 2, 1, 2, 3]);
    expect(sgrNumbers([], [['4', '3'], [''], ['31']])).toEqual([4, 0, 31]);
  });
});
