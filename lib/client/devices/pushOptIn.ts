import { PushSubscriptionSchema, type PushEvents } from '../../protocol/push';
import type { RpcClient } from '../rpcClient';
import { iosVersion, isIosDevice, isStandaloneDisplay } from '../install/iosDevice';

export const DEFAULT_PUSH_EVENTS: PushEvents = { approval: true, turnFinished: true, failed: true };

/** What decides whether push can be turned on here (read from the browser by `pushUnavailableReason`). */
export interface PushEnvironment {
  secureContext: boolean;
  userAgent: string;
  maxTouchPoints: number;
  /** The installed app (iOS: added to the Home Screen). */
  standalone: boolean;
  webPushApis: boolean;
  permission: NotificationPermission | null;
}

export const ADD_TO_HOME_SCREEN_FIRST =
  'On iPhone and iPad, notifications work only in the app on the Home Screen: tap Share, then Add to Home Screen, open HB Code from there and turn them on.';

/**
 * PWA-7: why push cannot be turned on here, in words for the settings screen; null when it can.
 * iOS and iPadOS (16.4 and later) give Web Push only to a Home Screen app, so in a Safari tab the
 * person is told to add it first, even where the tab exposes the push APIs.
 */
export function pushBlocker(env: PushEnvironment): string | null {
  if (!env.secureContext)
    return 'Notifications need the app on an HTTPS address (see the README: a tunnel with a real name).';
  if (isIosDevice(env.userAgent, env.maxTouchPoints)) {
    const version = iosVersion(env.userAgent);
    if (version && (version[0] < 16 || (version[0] === 16 && version[1] < 4)))
      return 'Notifications need iOS 16.4 or later on this iPhone or iPad.';
    if (!env.standalone) return ADD_TO_HOME_SCREEN_FIRST;
  }
  if (!env.webPushApis) return 'This browser does not support Web Push.';
  if (env.permission === 'denied') return 'Notifications are blocked for this site in the browser settings.';
  return null;
}

/** Why this browser cannot get push here, in words for the settings screen; null when it can. */
export function pushUnavailableReason(): string | null {
  const webPushApis = 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
  return pushBlocker({
    secureContext: window.isSecureContext,
    userAgent: navigator.userAgent,
    maxTouchPoints: navigator.maxTouchPoints,
    standalone: isStandaloneDisplay(),
    webPushApis,
    permission: 'Notification' in window ? Notification.permission : null,
  });
}

/** This browser's push subscription, if it has one. */
export async function currentPushSubscription(): Promise<PushSubscription | null> {
  const registration = await navigator.serviceWorker.ready;
  return registration.pushManager.getSubscription();
}

const base64UrlToBytes = (text: string) =>
  Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));

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
 * shown in answer to the user, never on load, and it is the first thing asked, while the tap still
 * counts as a user gesture (iOS refuses otherwise, PWA-7). `userVisibleOnly`: every push shows. A subscription made for another runtime's key (a
 * new data folder) is replaced.
 */
export async function turnOnPush(client: RpcClient, events: PushEvents): Promise<void> {
  const permission = await Notification.requestPermission();
  if (permission !== 'granted')
    throw new PushOptInError(
      'denied',
      'Notifications were not allowed. Allow them for this site in the browser settings, then try again.',
    );
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
    throw new PushOptInError(
      'subscribe_failed',
      `The browser's push service did not answer: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  await savePushEvents(client, subscription, events);
}

/** Tells the runtime which events notify this subscription. */
export async function savePushEvents(
  client: RpcClient,
  subscription: PushSubscription,
  events: PushEvents,
): Promise<void> {
  await client.call('push.subscribe', { subscription: PushSubscriptionSchema.parse(subscription.toJSON()), events });
}

export async function turnOffPush(client: RpcClient, subscription: PushSubscription): Promise<void> {
  await client.call('push.unsubscribe', { endpoint: subscription.endpoint });
  await subscription.unsubscribe();
}
