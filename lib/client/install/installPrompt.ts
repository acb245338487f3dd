/**
 * Installing the app (PWA-1), offered when the browser allows it (PWA-6). Chromium offers installation with `beforeinstallprompt`; the event
 * is kept (its default, the browser's own mini-infobar, prevented) so the app's Install button
 * can call `prompt()` from a tap, which the browser requires. iOS Safari has no such event: the
 * app shows how to add it from the Share menu instead. Once installed, nothing is offered.
 */
import { isIosDevice, isStandaloneDisplay } from './iosDevice';

export type InstallOffer = { kind: 'none' } | { kind: 'prompt' } | { kind: 'ios' } | { kind: 'installed' };

/** What Chromium's `beforeinstallprompt` event carries beyond Event (not in the DOM types). */
interface InstallPromptEvent extends Event {
  prompt(): Promise<unknown>;
  userChoice: Promise<{ outcome: 'accepted' | 'dismissed' }>;
}

function isInstallPromptEvent(event: Event): event is InstallPromptEvent {
  const candidate = event as Partial<InstallPromptEvent>;
  return typeof candidate.prompt === 'function' && typeof candidate.userChoice?.then === 'function';
}

let deferred: InstallPromptEvent | null = null;
let installed = false;
const listeners = new Set<() => void>();
let offer: InstallOffer = { kind: 'none' };

/** iPhone and iPad Safari (iPadOS reports itself as a Mac with touch); not other iOS browsers, which cannot add to the home screen the same way. */
function isIosSafari(): boolean {
  const ua = navigator.userAgent;
  return isIosDevice(ua, navigator.maxTouchPoints) && /Safari\//.test(ua) && !/(CriOS|FxiOS|EdgiOS)\//.test(ua);
}

function computeOffer(): InstallOffer {
  if (installed || isStandaloneDisplay()) return { kind: 'installed' };
  if (deferred) return { kind: 'prompt' };
  return isIosSafari() ? { kind: 'ios' } : { kind: 'none' };
}

function update(): void {
  offer = computeOffer();
  for (const listener of listeners) listener();
}

let started = false;
/** Starts listening; idempotent. Called when the app shell loads, so an early event is kept. */
export function watchInstallOffer(): void {
  if (started || typeof window === 'undefined') return;
  started = true;
  window.addEventListener('beforeinstallprompt', (event) => {
    if (!isInstallPromptEvent(event)) return;
    event.preventDefault();
    deferred = event;
    update();
  });
  window.addEventListener('appinstalled', () => {
    installed = true;
    deferred = null;
    update();
  });
  update();
}

export function subscribeInstallOffer(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export const currentInstallOffer = (): InstallOffer => offer;

/** Shows the browser's install dialog; must run from a tap. A prompt can be shown once only. */
export async function promptInstall(): Promise<'accepted' | 'dismissed' | 'unavailable'> {
  const event = deferred;
  if (!event) return 'unavailable';
  deferred = null;
  await event.prompt();
  const { outcome } = await event.userChoice;
  if (outcome === 'accepted') installed = true;
  update();
  return outcome;
}

// NOTE: Chromium fires `beforeinstallprompt` once, possibly before React has rendered anything
// (or while the pair screen shows): listen from the moment the app's code loads.
if (typeof window !== 'undefined') watchInstallOffer();
