import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../../lib/client/rpcClient';
import { PushPayloadSchema, type PushMessage } from '../../../lib/protocol/pushMessages';
import { startFakePushService, type FakePushService, type FakeSubscription } from '../../fixtures/fakePushService';
import { pairDevice, type PairedDevice } from '../../fixtures/pairedDevice';
import { makeRuntimeDirs, type RuntimeDirs } from '../../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../../fixtures/runtimeProcess';
import { createShellSession, runShell } from '../../fixtures/sessionHelpers';
import { waitUntil } from '../../fixtures/waitUntil';

const SUBJECT = 'mailto:owner@hbcode-tests.example';
const ALL_EVENTS = { approval: true, turnFinished: true, failed: true };

describe('PUSH-1 Web Push from the runtime to a push service', () => {
  let dirs: RuntimeDirs;
  let pushService: FakePushService;
  let runtime: RuntimeProcess;
  let admin: RpcClient;
  let phone: PairedDevice;
  /** Subscribed to every event from the first test on. */
  let everything: FakeSubscription;

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    pushService = await startFakePushService();
    runtime = await startRuntimeProcess({
      dataDir: dirs.dataDir,
      projectDirs: dirs.projectDirs,
      env: { NODE_EXTRA_CA_CERTS: pushService.caFile, HBCODE_VAPID_SUBJECT: SUBJECT },
      // The fake push service is on loopback, which push endpoints may name only with this flag (SEC-5).
      wrap: (command) => [...command, '--allow-private-fetch'],
    });
    admin = await runtime.connect();
    phone = await pairDevice(runtime, admin, 'Phone');
  }, 60_000);
  afterAll(async () => {
    phone?.client.close();
    admin?.close();
    await runtime?.stop();
    await pushService?.close();
    dirs?.remove();
  });

  const subscribe = (subscription: FakeSubscription, events = ALL_EVENTS) =>
    phone.client.call('push.subscribe', { subscription, events });
  const messageOf = (payload: unknown): PushMessage => PushPayloadSchema.parse(payload).notification.data.message;
  const messagesTo = (subscription: FakeSubscription): PushMessage[] =>
    pushService.received.filter((r) => r.subscriptionId === subscription.id).map((r) => messageOf(r.payload));

  it('PUSH-1 a finished turn and a failed command reach the subscription, encrypted for its keys and signed with the VAPID key', async () => {
    const { vapidPublicKey } = await phone.client.call('push.status');
    const subscription = pushService.subscribe();
    everything = subscription;
    await subscribe(subscription);
    expect((await phone.client.call('push.status')).subscriptions).toEqual([
      { endpoint: subscription.endpoint, events: ALL_EVENTS },
    ]);

    const sessionId = await createShellSession(admin);
    const { sessions } = await admin.call('sessions.list');
    const { projects } = await admin.call('projects.list');
    const title = `${projects[0]!.name} · ${sessions.find((s) => s.id === sessionId)!.title}`;

    await runShell(admin, sessionId, 'echo fine');
    const finished = await waitUntil(
      () => messagesTo(subscription).find((m) => m.type === 'show' && m.event === 'turnFinished'),
      'a turn-finished push',
      30_000,
    );
    expect(finished).toMatchObject({
      type: 'show',
      title,
      sessionId,
      approvalId: null,
      body: expect.stringContaining('echo fine'),
    });
    expect(finished.type === 'show' && new URL(finished.url, 'https://app.example').hash).toBe(
      `#/?session=${sessionId}`,
    );

    await runShell(admin, sessionId, 'exit 3');
    const failed = await waitUntil(
      () => messagesTo(subscription).find((m) => m.type === 'show' && m.event === 'failed'),
      'a failed-command push',
      30_000,
    );
    expect(failed).toMatchObject({
      type: 'show',
      title,
      sessionId,
      body: expect.stringMatching(/^Command failed \(exit 3\): exit 3/),
    });

    // PWA-7: on the wire each is a Declarative Web Push message that shows the same by itself.
    const payload = pushService.received.find((r) => {
      const message = messageOf(r.payload);
      return r.subscriptionId === subscription.id && message.type === 'show' && message.event === 'turnFinished';
    })?.payload;
    expect(payload).toEqual({
      web_push: 8030,
      notification: {
        title,
        body: expect.stringContaining('echo fine'),
        navigate: `${runtime.appOrigin}/#/?session=${sessionId}`,
        tag: expect.stringMatching(/^run:/),
        data: { message: finished },
      },
      mutable: true,
    });
    expect(pushService.refused).toEqual([]);
    for (const push of pushService.received) {
      expect(push.vapidPublicKey).toBe(vapidPublicKey);
      expect(push.jwtClaims.aud).toBe(pushService.origin);
      expect(push.jwtClaims.sub).toBe(SUBJECT);
      expect(push.jwtClaims.exp * 1000).toBeGreaterThan(Date.now());
      expect(Number(push.headers.ttl)).toBeGreaterThan(0);
    }
  }, 90_000);

  it('PUSH-1 only the events a device chose notify it', async () => {
    const onlyApprovals = pushService.subscribe();
    await subscribe(onlyApprovals, { approval: true, turnFinished: false, failed: false });
    const watcher = pushService.subscribe();
    await subscribe(watcher, { approval: false, turnFinished: true, failed: false });
    const sessionId = await createShellSession(admin);
    await runShell(admin, sessionId, 'echo chosen');
    await waitUntil(
      () => messagesTo(watcher).length > 0,
      'the turn-finished push to the subscription that chose it',
      30_000,
    );
    expect(messagesTo(onlyApprovals)).toEqual([]);
    await phone.client.call('push.unsubscribe', { endpoint: onlyApprovals.endpoint });
    await phone.client.call('push.unsubscribe', { endpoint: watcher.endpoint });
  }, 60_000);

  it('PUSH-1 a subscription the push service answers 410 is deleted', async () => {
    const expired = pushService.subscribe('gone');
    await subscribe(expired);
    const endpoints = async () => (await phone.client.call('push.status')).subscriptions.map((s) => s.endpoint);
    expect(await endpoints()).toContain(expired.endpoint);
    const sessionId = await createShellSession(admin);
    await runShell(admin, sessionId, 'echo to-nobody');
    await waitUntil(
      async () => !(await endpoints()).includes(expired.endpoint),
      'the expired subscription is deleted',
      30_000,
    );
  }, 60_000);

  it('PUSH-1 the scripts token has no device to subscribe, and a push endpoint must be HTTPS', async () => {
    const subscription = pushService.subscribe();
    await expect(admin.call('push.subscribe', { subscription, events: ALL_EVENTS })).rejects.toMatchObject({
      code: 'invalid_params',
    });
    const insecure = { ...subscription, endpoint: subscription.endpoint.replace('https:', 'http:') };
    await expect(
      phone.client.call('push.subscribe', { subscription: insecure, events: ALL_EVENTS }),
    ).rejects.toMatchObject({ code: 'invalid_params' });
  });

  it('PUSH-1 a revoked device loses its subscriptions', async () => {
    const tablet = await pairDevice(runtime, admin, 'Tablet');
    const subscription = pushService.subscribe();
    await tablet.client.call('push.subscribe', { subscription, events: ALL_EVENTS });
    await admin.call('devices.revoke', { deviceId: tablet.deviceId });
    tablet.client.close();
    const sessionId = await createShellSession(admin);
    await runShell(admin, sessionId, 'echo after-revoke');
    const toPhone = () => messagesTo(everything).some((m) => m.type === 'show' && m.body.includes('after-revoke'));
    await waitUntil(toPhone, 'the phone still gets its push', 30_000);
    expect(messagesTo(subscription)).toEqual([]);
  }, 60_000);

  it('PUSH-1 the VAPID key pair stays in the data folder, readable by its owner only, across restarts', async () => {
    const before = (await phone.client.call('push.status')).vapidPublicKey;
    expect(fs.statSync(path.join(dirs.dataDir, 'vapid-keys.json')).mode & 0o777).toBe(0o600);
    phone.client.close();
    admin.close();
    runtime = await runtime.restart();
    admin = await runtime.connect();
    expect((await admin.call('push.status')).vapidPublicKey).toBe(before);
  }, 60_000);
});
