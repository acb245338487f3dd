import { shortDigest } from '../../protocol/buildDigest';

/**
 * What the page warns about (RLY-5), until it is reloaded:
 * - `refused`: a new build was served that the desktop does not vouch for; it was not installed.
 * - `unvouched`: a new worker got installed (or took over) without the desktop's vouch: a worker
 *   rewritten to skip the check.
 * - `differs`: the build this page runs (trusted on first use) is not the desktop's.
 */
export type BuildWarning =
  | { kind: 'refused'; offered: string; vouched: string }
  | { kind: 'unvouched'; offered: string | null }
  | { kind: 'differs'; installed: string; vouched: string };

let current: BuildWarning | null = null;
const listeners = new Set<() => void>();

/** The first warning stays: a later, milder one never hides it. */
export function raiseBuildWarning(warning: BuildWarning): void {
  if (current && (current.kind !== 'differs' || warning.kind === 'differs')) return;
  current = warning;
  for (const listener of listeners) listener();
}

export function currentBuildWarning(): BuildWarning | null {
  return current;
}

export function subscribeBuildWarning(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The words shown, with the digests' short forms for comparing with the desktop's. */
export function describeBuildWarning(warning: BuildWarning): { title: string; detail: string } {
  switch (warning.kind) {
    case 'refused':
      return {
        title: 'The relay served an app build your desktop does not vouch for. The installed version keeps working.',
        detail: `Offered build ${shortDigest(warning.offered)} · your desktop's build ${shortDigest(warning.vouched)}`,
      };
    case 'unvouched':
      return {
        title: 'A new app build was installed without your desktop vouching for it. Do not use it: open the app from your desktop to reinstall it.',
        detail: warning.offered ? `Unvouched build ${shortDigest(warning.offered)}` : 'The new build does not say which build it is.',
      };
    case 'differs':
      return {
        title: "This app's build is not the one your desktop runs: whoever served it may have changed it. Open the app from your desktop to install its build.",
        detail: `This build ${shortDigest(warning.installed)} · your desktop's build ${shortDigest(warning.vouched)}`,
      };
  }
}
