import {
  PushEventsSchema,
  type PushEventKind,
  type PushEvents,
  type PushSubscriptionKeys,
} from '../../lib/protocol/push';
import type { Db } from '../runtime/store/database';

export interface StoredPushSubscription extends PushSubscriptionKeys {
  deviceId: string;
  events: PushEvents;
  /** The app origin the subscription was made on (PWA-7); '' for one made before it was kept. */
  appOrigin: string;
}

interface SubscriptionRow {
  endpoint: string;
  device_id: string;
  p256dh: string;
  auth: string;
  events: string;
  app_origin: string;
}

const rowToSubscription = (row: SubscriptionRow): StoredPushSubscription => ({
  endpoint: row.endpoint,
  deviceId: row.device_id,
  keys: { p256dh: row.p256dh, auth: row.auth },
  events: PushEventsSchema.parse(JSON.parse(row.events)),
  appOrigin: row.app_origin,
});

/** Each device's Web Push subscriptions, in SQLite (PUSH-1). */
export class PushSubscriptionStore {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      upsert: db.prepare(
        `INSERT INTO push_subscriptions (endpoint, device_id, p256dh, auth, events, app_origin, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (endpoint) DO UPDATE SET device_id = excluded.device_id, p256dh = excluded.p256dh, auth = excluded.auth, events = excluded.events, app_origin = excluded.app_origin`,
      ),
      all: db.prepare<[], SubscriptionRow>(
        'SELECT endpoint, device_id, p256dh, auth, events, app_origin FROM push_subscriptions ORDER BY created_at',
      ),
      ofDevice: db.prepare<[string], SubscriptionRow>(
        'SELECT endpoint, device_id, p256dh, auth, events, app_origin FROM push_subscriptions WHERE device_id = ? ORDER BY created_at',
      ),
      deleteOfDevice: db.prepare('DELETE FROM push_subscriptions WHERE endpoint = ? AND device_id = ?'),
      deleteEndpoint: db.prepare('DELETE FROM push_subscriptions WHERE endpoint = ?'),
      deleteDevice: db.prepare('DELETE FROM push_subscriptions WHERE device_id = ?'),
    };
  }

  save(
    deviceId: string,
    subscription: PushSubscriptionKeys,
    events: PushEvents,
    appOrigin: string,
    now = Date.now(),
  ): void {
    this.stmts.upsert.run(
      subscription.endpoint,
      deviceId,
      subscription.keys.p256dh,
      subscription.keys.auth,
      JSON.stringify(events),
      appOrigin,
      now,
    );
  }

  ofDevice(deviceId: string): StoredPushSubscription[] {
    return this.stmts.ofDevice.all(deviceId).map(rowToSubscription);
  }

  /** Every subscription that chose this event. */
  wanting(event: PushEventKind): StoredPushSubscription[] {
    return this.stmts.all
      .all()
      .map(rowToSubscription)
      .filter((s) => s.events[event]);
  }

  /** A device removes only its own subscriptions. */
  removeOfDevice(deviceId: string, endpoint: string): void {
    this.stmts.deleteOfDevice.run(endpoint, deviceId);
  }

  /** The push service said this endpoint is gone (404/410). */
  removeEndpoint(endpoint: string): void {
    this.stmts.deleteEndpoint.run(endpoint);
  }

  removeDevice(deviceId: string): void {
    this.stmts.deleteDevice.run(deviceId);
  }
}
