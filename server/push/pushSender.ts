import type https from 'node:https';
import webPush, { WebPushError } from 'web-push';
import type { PushMessage } from '../../lib/protocol/pushMessages';
import type { Logger } from '../runtime/log';
import type { StoredPushSubscription } from './pushSubscriptions';
import type { VapidKeys } from './vapidKeys';
import { toPushPayload } from './pushPayload';

/** How long a push service keeps an undelivered message: news older than a day is stale. */
const PUSH_TTL_SECONDS = 24 * 60 * 60;

export type PushOutcome = 'sent' | 'gone' | 'failed';

/** Sends one encrypted message (RFC 8291, aes128gcm) with a VAPID signature (RFC 8292), through `web-push`, as a declarative payload (PWA-7). */
export class PushSender {
  constructor(
    private readonly keys: VapidKeys,
    private readonly subject: string,
    private readonly log: Logger,
    /** Checks each address it connects to (SEC-5); undefined when private addresses are allowed. */
    private readonly agent: https.Agent | undefined,
  ) {}

  async send(subscription: StoredPushSubscription, message: PushMessage): Promise<PushOutcome> {
    try {
      await webPush.sendNotification(
        { endpoint: subscription.endpoint, keys: subscription.keys },
        JSON.stringify(toPushPayload(message, subscription.appOrigin)),
        {
          vapidDetails: { subject: this.subject, publicKey: this.keys.publicKey, privateKey: this.keys.privateKey },
          TTL: PUSH_TTL_SECONDS,
          contentEncoding: 'aes128gcm',
          ...(this.agent ? { agent: this.agent } : {}),
          urgency: message.type === 'show' && message.event === 'approval' ? 'high' : 'normal',
        },
      );
      return 'sent';
    } catch (error) {
      // PUSH-1: 404 and 410 mean the browser dropped this subscription: it is never tried again.
      if (error instanceof WebPushError && (error.statusCode === 404 || error.statusCode === 410)) return 'gone';
      const status = error instanceof WebPushError ? error.statusCode : null;
      this.log.warn('push message not sent', {
        status,
        reason: error instanceof Error ? error.message : String(error),
      });
      return 'failed';
    }
  }
}
