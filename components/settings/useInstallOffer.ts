'use client';
import { useEffect, useSyncExternalStore } from 'react';
import {
  currentInstallOffer,
  subscribeInstallOffer,
  watchInstallOffer,
  type InstallOffer,
} from '../../lib/client/install/installPrompt';

const SERVER_OFFER: InstallOffer = { kind: 'none' };

/** What installing this app needs now (PWA-1): a prompt to show, Safari's steps, or nothing. */
export function useInstallOffer(): InstallOffer {
  useEffect(watchInstallOffer, []);
  return useSyncExternalStore(subscribeInstallOffer, currentInstallOffer, () => SERVER_OFFER);
}
