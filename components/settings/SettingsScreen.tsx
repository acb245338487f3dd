'use client';
import { promptInstall } from '../../lib/client/install/installPrompt';
import { IosInstallSteps } from './InstallButton';
import { OutputSection } from './OutputSection';
import { StorageSection } from './StorageSection';
import { useInstallOffer } from './useInstallOffer';

/** `#/settings`: installing the app (PWA-1), where output opens (UX-1) and what it stores on this device (PWA-3); AppShell adds Sign out below. */
export function SettingsScreen() {
  const offer = useInstallOffer();
  return (
    <>
      <section className="card" aria-labelledby="install-title">
        <h2 id="install-title">Install</h2>
        {offer.kind === 'installed' && <p>HB Code is installed on this device.</p>}
        {offer.kind === 'prompt' && (
          <div className="row">
            <span className="grow">Install HB Code to open it from the home screen or dock, offline too.</span>
            <button className="primary" onClick={() => void promptInstall()}>
              Install HB Code
            </button>
          </div>
        )}
        {offer.kind === 'ios' && <IosInstallSteps />}
        {offer.kind === 'none' && (
          <p className="muted">
            This browser has not offered to install HB Code here; its menu may have Install or Add to Home Screen.
          </p>
        )}
      </section>
      <OutputSection />
      <StorageSection />
    </>
  );
}
