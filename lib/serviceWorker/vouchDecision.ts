/** How a new build was let in: vouched by the desktop, or trusted on first use (no vouching build installed before it). */
export type VouchedBy = 'desktop' | 'firstInstall';

export type VouchDecision =
  | { accept: true; vouchedBy: VouchedBy }
  /** The desktop answered with another build's digest: the relay served a build it does not run. */
  | { accept: false; reason: 'mismatch'; vouched: string }
  /** No page answered for the desktop in time: refused for now, the browser tries again later. */
  | { accept: false; reason: 'noAnswer' };

/**
 * RLY-5: whether a new worker may install. With a build already installed, only when the desktop
 * (over the app's own, end-to-end connection) names this build's digest; with none installed (or
 * one from before vouching, `firstInstall` too), the build is trusted on first use (the page then compares it with the desktop's, see
 * checkInstalledBuild).
 */
export function decideVouch(input: { offered: string; firstInstall: boolean; desktopDigest: string | null }): VouchDecision {
  if (input.firstInstall) return { accept: true, vouchedBy: 'firstInstall' };
  if (input.desktopDigest === null) return { accept: false, reason: 'noAnswer' };
  if (input.desktopDigest !== input.offered) return { accept: false, reason: 'mismatch', vouched: input.desktopDigest };
  return { accept: true, vouchedBy: 'desktop' };
}
