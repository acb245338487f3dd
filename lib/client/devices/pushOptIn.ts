import { PushSubscriptionSchema, type PushEvents } from '../../protocol/push';
import type { RpcClient } from '../rpcClient';

export const DEFAULT_PUSH_EVENTS: PushEvents = { approval: true, turnFinished: true, failed: true };

/** Why this browser cannot get push here, in words for the settings screen; null when it can. */
export function pushUnavailableReason(): string | null {
  if (!window.isSecureContext) return 'Notifications need the app on an HTTPS address (see the README: a tunnel with a real name).';
  const ios = /iPhone|iPad|iPod/.test(navigator.userAgent);
  if (!('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window)) {
    return ios ? 'On iPhone and iPad, notifications work only in the app added to the Home Screen (Share → Add to Home Screen).' : 'This browser does not support Web Push.';
  }
  if (Notification.permission === 'denied') return 'Notifications are blocked for this site in the browser settings.';
  return null;
}

/** This browser's push subscription, if it has one. */
export async function currentPushSubscription(): Promise<PushSubscription | null> {
  const registration = await navigator.serviceWorker.ready;
  return registration.pushManager.getSubscription();
}

const base64UrlToBytes = (text: string) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));

function sameKey(a: ArrayBuffer | null, b: Uint8Array): boolean {
  if (!a || a.byteLength !== b.length) return false;
  const bytes = new Uint8Array(a);
  return bytes.every((byte, i) => byte === b[i]);
}

export class PushOptInError extends Error {
  override readonly name = 'PushOptInError';
  constructor(
    readonly code: 'denied' | 'subscribe_failed',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Turns push on for this device (PUSH-1). Called from a tap: the permission prompt is only ever
 * shown in answer to the user, never on load. A subscription made for another runtime's key (a
 * new data folder) is replaced.
 */
export async function turnOnPush(client: RpcClient, events: PushEvents): Promise<void> {
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') throw new PushOptInError('denied', 'Notifications were not allowed. Allow them for this site in the browser settings, then try again.');
  const { vapidPublicKey } = await client.call('push.status');
  const applicationServerKey = base64UrlToBytes(vapidPublicKey);
  const registration = await navigator.serviceWorker.ready;
  let subscription = await registration.pushManager.getSubscription();
  if (subscription && !sameKey(subscription.options.applicationServerKey, applicationServerKey)) {
    await subscription.unsubscribe();
    subscription = null;
  }
  try {
    subscription ??= await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey });
  } catch (error) {
    throw new PushOptInError('subscribe_failed', `The browser's push service did not answer: ${error instanceof Error ? error.message : String(error)}`);
  }
  await savePushEvents(client, subscription, events);
}

/** Tells the runtime which events notify this subscription. */
export async function savePushEvents(client: RpcClient, subscription: PushSubscription, events: PushEvents): Promise<void> {
  await client.call('push.subscribe', { subscription: PushSubscriptionSchema.parse(subscription.toJSON()), events });
}

export async function turnOffPush(client: RpcClient, subscription: PushSubscription): Promise<void> {
  await client.call('push.unsubscribe', { endpoint: subscription.endpoint });
  await subscription.unsubscribe();
}
