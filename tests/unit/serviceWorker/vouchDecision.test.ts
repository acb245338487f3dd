import { describe, expect, it, vi } from 'vitest';
import { decideVouch } from '../../../lib/serviceWorker/vouchDecision';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

describe('RLY-5 whether a new build may install', () => {
  it('RLY-5 with a build installed, only the digest the desktop names is accepted', () => {
    expect(decideVouch({ offered: B, firstInstall: false, desktopDigest: B })).toEqual({ accept: true, vouchedBy: 'desktop' });
    expect(decideVouch({ offered: B, firstInstall: false, desktopDigest: A })).toEqual({ accept: false, reason: 'mismatch', vouched: A });
  });

  it('RLY-5 no answer from the desktop refuses the build for now, never lets it in', () => {
    expect(decideVouch({ offered: B, firstInstall: false, desktopDigest: null })).toEqual({ accept: false, reason: 'noAnswer' });
  });

  it('RLY-5 the first build of the app on this device is trusted on first use', () => {
    expect(decideVouch({ offered: B, firstInstall: true, desktopDigest: null })).toEqual({ accept: true, vouchedBy: 'firstInstall' });
  });
});

describe('RLY-5 the warning the page shows', () => {
  it('RLY-5 a refused build names both short digests; a later, milder warning never replaces it', async () => {
    // The warning is module state kept until a reload; other files in this worker may have raised one.
    vi.resetModules();
    const { currentBuildWarning, describeBuildWarning, raiseBuildWarning } = await import('../../../lib/client/buildVouch/buildWarning');
    raiseBuildWarning({ kind: 'refused', offered: B, vouched: A });
    raiseBuildWarning({ kind: 'differs', installed: B, vouched: A });
    const warning = currentBuildWarning()!;
    expect(warning.kind).toBe('refused');
    const { title, detail } = describeBuildWarning(warning);
    expect(title).toBe('The relay served an app build your desktop does not vouch for. The installed version keeps working.');
    expect(detail).toContain('b'.repeat(12));
    expect(detail).toContain('a'.repeat(12));
    expect(detail).not.toContain('a'.repeat(13));
  });
});
