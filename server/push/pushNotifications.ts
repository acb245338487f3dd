import { checkPushEndpoint, pushAgent } from './pushEndpoint';
import type { PushEvents, PushSubscriptionKeys } from '../../lib/protocol/push';
import type { Logger } from '../runtime/log';
import type { RuntimeEvent } from '../runtime/runtime';
import type { Db } from '../runtime/store/database';
import { pushIntentFor, type PushIntent, type SessionNames } from './pushEvents';
import { PushSender, type PushOutcome } from './pushSender';
import type { PushMessage } from '../../lib/protocol/pushMessages';
import type { StoredPushSubscription } from './pushSubscriptions';
import { PushSubscriptionStore } from './pushSubscriptions';
import { loadOrCreateVapidKeys } from './vapidKeys';

/** How many pushed keys are remembered to send each only once; old ones are forgotten first. */
const REMEMBERED_KEYS = 2000;

export interface PushNotificationsOptions {
  db: Db;
  dataDir: string;
  /** Already checked: never a localhost address (PUSH-1). */
  vapidSubject: string;
  log: Logger;
  namesOf(sessionId: string): SessionNames | null;
  /** Sends one message; `web-push` to the subscription's push service unless another is given. */
  send?(subscription: StoredPushSubscription, message: PushMessage): Promise<PushOutcome>;
  /** Push endpoints on this computer or its network are allowed (`--allow-private-fetch`). */
  allowPrivateEndpoints?: boolean;
}

/**
 * Web Push for the runtime (PUSH-1): turns what the runtime publishes into pushes to the
 * subscriptions that chose that event, and deletes those the push service says are gone.
 */
export class PushNotifications {
  readonly publicKey: string;
  private readonly store: PushSubscriptionStore;
  private readonly send: (subscription: StoredPushSubscription, message: PushMessage) => Promise<PushOutcome>;
  private readonly pushed = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly options: PushNotificationsOptions) {
    const keys = loadOrCreateVapidKeys(options.dataDir);
    this.publicKey = keys.publicKey;
    this.store = new PushSubscriptionStore(options.db);
    const sender = new PushSender(
      keys,
      options.vapidSubject,
      options.log,
      pushAgent(options.allowPrivateEndpoints === true),
    );
    this.send = options.send ?? ((subscription, message) => sender.send(subscription, message));
  }

  subscriptionsOf(deviceId: string): { endpoint: string; events: PushEvents }[] {
    return this.store.ofDevice(deviceId).map(({ endpoint, events }) => ({ endpoint, events }));
  }

  /** `appOrigin`: where the device's app runs, for the address a tap opens (PWA-7). */
  subscribe(deviceId: string, subscription: PushSubscriptionKeys, events: PushEvents, appOrigin: string): void {
    checkPushEndpoint(subscription.endpoint, this.options.allowPrivateEndpoints === true);
    this.store.save(deviceId, subscription, events, appOrigin);
  }

  unsubscribe(deviceId: string, endpoint: string): void {
    this.store.removeOfDevice(deviceId, endpoint);
  }

  onRuntimeEvent(event: RuntimeEvent): void {
    if (event.type === 'device.revoked') {
      this.store.removeDevice(event.deviceId);
      return;
    }
    const intent = pushIntentFor(event.notification, this.options.namesOf);
    if (intent && this.firstTime(intent)) this.deliver(intent);
  }

  /** Resolves once every push started so far has been answered (for an orderly stop). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private firstTime(intent: PushIntent): boolean {
    if (this.pushed.has(intent.onceKey)) return false;
    // A withdrawal is sent only for a notification this runtime showed.
    if (intent.message.type === 'withdraw' && !this.pushed.has(intent.onceKey.replace(/:answered$/, ':asked')))
      return false;
    this.pushed.add(intent.onceKey);
    if (this.pushed.size > REMEMBERED_KEYS) this.pushed.delete(this.pushed.values().next().value!);
    return true;
  }

  private deliver(intent: PushIntent): void {
    for (const subscription of this.store.wanting(intent.event)) {
      const sending = this.send(subscription, intent.message)
        .then((outcome) => {
          if (outcome !== 'gone') return;
          this.store.removeEndpoint(subscription.endpoint);
          this.options.log.info('push subscription expired; deleted', { deviceId: subscription.deviceId });
        })
        .catch((error: unknown) =>
          this.options.log.error('push bookkeeping failed', {
            reason: error instanceof Error ? error.message : String(error),
          }),
        );
      this.inFlight.add(sending);
      void sending.finally(() => this.inFlight.delete(sending));
    }
  }
}
