'use client';
import { useSyncExternalStore } from 'react';
import { currentBuildWarning, describeBuildWarning, subscribeBuildWarning } from '../lib/client/buildVouch/buildWarning';

/** RLY-5: the build warning, on every screen until the page reloads; it has no dismiss on purpose. */
export function BuildVouchWarning() {
  const warning = useSyncExternalStore(subscribeBuildWarning, currentBuildWarning, () => null);
  if (!warning) return null;
  const { title, detail } = describeBuildWarning(warning);
  return (
    <div className="build-warning" role="alert" data-build-warning={warning.kind}>
      <strong>{title}</strong>
      <span className="build-warning-digests">{detail}</span>
    </div>
  );
}
