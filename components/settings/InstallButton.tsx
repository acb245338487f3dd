'use client';
import { Share } from 'lucide-react';
import { useState } from 'react';
import { promptInstall } from '../../lib/client/install/installPrompt';
import { HeaderIcon } from '../header/HeaderIcon';
import { useInstallOffer } from './useInstallOffer';

/** Safari on iOS installs from its Share menu only: the steps, shown where the button was tapped. */
export function IosInstallSteps() {
  return (
    <p className="install-steps">
      To install HB Code, tap <Share size={16} aria-label="Share" /> <strong>Share</strong>, then{' '}
      <strong>Add to Home Screen</strong>.
    </p>
  );
}

/**
 * Install, in the header, only while the browser offers it (PWA-6): the kept `beforeinstallprompt`
 * is shown from this tap; on iOS Safari the tap shows the Share steps; once installed it is gone.
 */
export function InstallButton() {
  const offer = useInstallOffer();
  const [showSteps, setShowSteps] = useState(false);
  if (offer.kind !== 'prompt' && offer.kind !== 'ios') return null;
  return (
    <>
      <button
        className="header-action install"
        aria-expanded={offer.kind === 'ios' ? showSteps : undefined}
        onClick={() =>
          offer.kind === 'ios'
            ? setShowSteps(!showSteps)
            : void promptInstall().catch((e: unknown) => console.warn('The install dialog failed', e))
        }
      >
        <HeaderIcon name="install" />
        <span>Install</span>
      </button>
      {offer.kind === 'ios' && showSteps && (
        <div className="card install-popover" role="note">
          <IosInstallSteps />
        </div>
      )}
    </>
  );
}
