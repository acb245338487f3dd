'use client';
import { useEffect, useState } from 'react';
import {
  currentPushSubscription,
  DEFAULT_PUSH_EVENTS,
  pushUnavailableReason,
  savePushEvents,
  turnOffPush,
  turnOnPush,
} from '../../lib/client/devices/pushOptIn';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { PushEventKind, PushEvents } from '../../lib/protocol/push';

const EVENT_LABELS: Record<PushEventKind, string> = {
  approval: 'An approval is waiting',
  turnFinished: 'A turn finished',
  failed: 'A command or turn failed',
};

/** PUSH-1: this device's notifications, switched on from a tap, with the events that notify it. */
export function NotificationSettings({ client }: { client: RpcClient | null }) {
  const [unavailable, setUnavailable] = useState<string | null>(null);
  const [subscription, setSubscription] = useState<PushSubscription | null>(null);
  const [events, setEvents] = useState<PushEvents>(DEFAULT_PUSH_EVENTS);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const reason = pushUnavailableReason();
    setUnavailable(reason);
    if (reason || !client) return;
    let cancelled = false;
    void (async () => {
      const [current, status] = await Promise.all([currentPushSubscription(), client.call('push.status')]);
      const known = current && status.subscriptions.find((s) => s.endpoint === current.endpoint);
      if (cancelled) return;
      // A subscription the runtime does not know (a new data folder) counts as off.
      setSubscription(known ? current : null);
      if (known) setEvents(known.events);
    })().catch((caught: unknown) => setError(caught instanceof Error ? caught.message : String(caught)));
    return () => {
      cancelled = true;
    };
  }, [client]);

  async function run(work: (client: RpcClient) => Promise<void>) {
    if (!client) return;
    setBusy(true);
    setError(null);
    try {
      await work(client);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  }

  const turnOn = () =>
    run(async (c) => {
      await turnOnPush(c, events);
      setSubscription(await currentPushSubscription());
    });
  const turnOff = () =>
    run(async (c) => {
      if (subscription) await turnOffPush(c, subscription);
      setSubscription(null);
    });
  const choose = (kind: PushEventKind, on: boolean) => {
    const next = { ...events, [kind]: on };
    setEvents(next);
    if (subscription) void run((c) => savePushEvents(c, subscription, next));
  };

  return (
    <section className="card devices-section" aria-labelledby="notifications">
      <h2 id="notifications">Notifications</h2>
      <p className="muted">
        Phones get notifications only when the app is opened on a real HTTPS name; on iPhone and iPad, only from the app
        added to the Home Screen.
      </p>
      {unavailable && (
        <p className="muted" role="note">
          {unavailable}
        </p>
      )}
      <fieldset className="push-events" disabled={busy}>
        <legend className="muted">Notify this device when</legend>
        {(Object.keys(EVENT_LABELS) as PushEventKind[]).map((kind) => (
          <label key={kind} className="check-row">
            <input type="checkbox" checked={events[kind]} onChange={(e) => choose(kind, e.target.checked)} />
            {EVENT_LABELS[kind]}
          </label>
        ))}
      </fieldset>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <p className="muted" role="status">
        {subscription ? 'Notifications are on for this device.' : 'Notifications are off for this device.'}
      </p>
      {subscription ? (
        <button onClick={turnOff} disabled={busy || !client}>
          Turn off notifications
        </button>
      ) : (
        <button className="primary" onClick={turnOn} disabled={busy || !client || unavailable !== null}>
          Turn on notifications
        </button>
      )}
    </section>
  );
}
