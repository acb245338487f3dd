import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '../../lib/client/rpcClient';
import { ApprovalSchema } from '../../lib/protocol/agents';
import { PushPayloadSchema, type PushPayload } from '../../lib/protocol/pushMessages';
import { toPushPayload } from '../../server/push/pushPayload';
import { pushIntentFor, sessionLink } from '../../server/push/pushEvents';
import { connectChromium } from '../fixtures/sharedChromium';
import { startFakePushService, type FakePushService, type FakeSubscription } from '../fixtures/fakePushService';
import { pairDevice } from '../fixtures/pairedDevice';
import { runShell } from '../fixtures/sessionHelpers';
import { makeRuntimeDirs, type RuntimeDirs } from '../fixtures/runtimeDirs';
import { startRuntimeProcess, type RuntimeProcess } from '../fixtures/runtimeProcess';
import { waitUntil } from '../fixtures/waitUntil';
import { pairUnderServiceWorker, screenshotPath } from './appHarness';

interface ShownNotification {
  title: string;
  body: string;
  tag: string;
  data: unknown;
}

const shownNotifications = (page: Page): Promise<ShownNotification[]> =>
  page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    return (await registration.getNotifications()).map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      data: n.data as unknown,
    }));
  });

describe('PUSH-1 the service worker shows, hides and opens pushed notifications', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  let registrationId: string;
  let pushService: FakePushService;
  let subscription: FakeSubscription;
  let admin: RpcClient;
  let projectName: string;
  const sessions: Record<'alpha' | 'beta', string> = { alpha: '', beta: '' };

  /** A push message as the browser's push service would hand it to the worker (CDP). */
  const deliver = (message: PushPayload) =>
    cdp.send('ServiceWorker.deliverPushMessage', {
      origin: runtime.appOrigin,
      registrationId,
      data: JSON.stringify(message),
    });
  /** What the runtime pushed to the fake push service (decrypted there) after a command in this session. */
  async function pushedAfterCommand(sessionId: string, command: string): Promise<PushPayload> {
    await runShell(admin, sessionId, command);
    return waitUntil(
      () =>
        pushService.received
          .filter((r) => r.subscriptionId === subscription.id)
          .map((r) => PushPayloadSchema.parse(r.payload))
          .find(
            ({ notification: { data } }) =>
              data.message.type === 'show' &&
              data.message.sessionId === sessionId &&
              data.message.body.includes(command),
          ),
      `the runtime's push for "${command}"`,
      30_000,
    );
  }
  /** The push the runtime makes of an approval of Beta, waiting or answered (the same function it runs). */
  function approvalPush(decision: 'accept' | null): PushPayload {
    const approval = ApprovalSchema.parse({
      id: 'b1',
      sessionId: sessions.beta,
      runId: 'r1',
      command: 'git push',
      reason: null,
      createdAt: 1,
      decision,
    });
    const intent = pushIntentFor(
      { method: 'approval.changed', params: { sessionId: sessions.beta, approval } },
      () => ({ projectName: 'project', sessionTitle: 'Beta' }),
    )!;
    return toPushPayload(intent.message, runtime.appOrigin);
  }

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    pushService = await startFakePushService();
    // The fake push service is on loopback, which push endpoints may name only with this flag (SEC-5).
    runtime = await startRuntimeProcess({
      dataDir: dirs.dataDir,
      projectDirs: dirs.projectDirs,
      env: { NODE_EXTRA_CA_CERTS: pushService.caFile },
      wrap: (command) => [...command, '--allow-private-fetch'],
    });
    admin = await runtime.connect();
    // A device subscribed at the fake push service: what the runtime sends there is what the browser's worker gets.
    const listener = await pairDevice(runtime, admin, 'Push listener');
    subscription = pushService.subscribe();
    await listener.client.call('push.subscribe', {
      subscription,
      events: { approval: true, turnFinished: true, failed: true },
    });
    listener.client.close();
    const { projects } = await admin.call('projects.list');
    projectName = projects[0]!.name;
    for (const name of ['alpha', 'beta'] as const) {
      sessions[name] = (
        await admin.call('sessions.create', {
          projectId: projects[0]!.id,
          agent: 'shell',
          title: name === 'alpha' ? 'Alpha' : 'Beta',
        })
      ).session.id;
    }
    browser = await connectChromium();
    context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await context.grantPermissions(['notifications'], { origin: runtime.appOrigin });
    // Counts permission prompts: PUSH-1 asks only in answer to a tap, never on load.
    await context.addInitScript(() => {
      const scope = window as unknown as { permissionAsks: number };
      scope.permissionAsks = 0;
      const ask = Notification.requestPermission.bind(Notification);
      Notification.requestPermission = () => {
        scope.permissionAsks++;
        return ask();
      };
    });
    page = await context.newPage();
    await pairUnderServiceWorker(page, runtime);
    cdp = await context.newCDPSession(page);
    const registered = new Promise<string>((resolve) => {
      cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
        const app = registrations.find((r) => r.scopeURL === `${runtime.appOrigin}/` && !r.isDeleted);
        if (app) resolve(app.registrationId);
      });
    });
    await cdp.send('ServiceWorker.enable');
    registrationId = await registered;
  }, 90_000);
  afterAll(async () => {
    admin?.close();
    await browser?.close();
    await runtime?.stop();
    await pushService?.close();
    dirs?.remove();
  });

  it('PUSH-1 what the runtime pushed for a finished turn, given to the worker, shows a notification naming project and session; a tap opens that session', async () => {
    await page.getByText('Alpha').first().waitFor();
    const pushed = await pushedAfterCommand(sessions.alpha, 'echo alpha-done');
    await deliver(pushed);
    const [shown] = await waitUntil(
      async () => {
        const list = await shownNotifications(page);
        return list.length > 0 && list;
      },
      'the notification is shown',
      20_000,
    );
    expect(shown).toEqual({
      title: `${projectName} · Alpha`,
      body: 'Turn finished: echo alpha-done',
      tag: expect.stringMatching(/^run:/),
      data: { url: sessionLink(sessions.alpha, null), sessionId: sessions.alpha, approvalId: null },
    });
    const tag = shown!.tag;

    // A tap: the browser fires notificationclick in the worker; here the test fires it there.
    const [worker] = context.serviceWorkers();
    await worker!.evaluate(async (tag) => {
      const scope = self as unknown as {
        registration: ServiceWorkerRegistration;
        dispatchEvent(event: Event): boolean;
      };
      const [notification] = await scope.registration.getNotifications({ tag });
      const NotificationEventClass = (
        self as unknown as { NotificationEvent: new (type: string, init: { notification: Notification }) => Event }
      ).NotificationEvent;
      scope.dispatchEvent(new NotificationEventClass('notificationclick', { notification: notification! }));
    }, tag);
    await page.getByRole('heading', { name: 'Alpha' }).waitFor({ timeout: 20_000 });
    await waitUntil(async () => (await shownNotifications(page)).length === 0, 'the tapped notification closes');
  }, 60_000);

  it('PUSH-1 PWA-7 news of the session on screen is not left shown there; news of another session is, and an answered approval withdraws it; every push shows a notification', async () => {
    await page.getByRole('heading', { name: 'Alpha' }).waitFor();
    // PWA-7: iOS revokes a subscription whose pushes show nothing, so the worker's showNotification calls are counted.
    const [worker] = context.serviceWorkers();
    await worker!.evaluate(() => {
      const scope = self as unknown as { registration: ServiceWorkerRegistration; shownTags: string[] };
      scope.shownTags = [];
      const show = scope.registration.showNotification.bind(scope.registration);
      scope.registration.showNotification = (title, options) => {
        scope.shownTags.push(options?.tag ?? '');
        return show(title, options);
      };
    });
    const shownTags = () => worker!.evaluate(() => (self as unknown as { shownTags: string[] }).shownTags);
    const alphaAgain = await pushedAfterCommand(sessions.alpha, 'echo alpha-again');
    await deliver(alphaAgain);
    await waitUntil(
      async () => (await shownTags()).includes(alphaAgain.notification.tag),
      "the on-screen session's push is shown (and closed)",
      20_000,
    );
    await deliver(approvalPush(null));
    await waitUntil(
      async () => (await shownNotifications(page)).some((n) => n.tag === 'approval:b1'),
      "the other session's notification",
      20_000,
    );
    const [beta] = await shownNotifications(page);
    expect(await shownNotifications(page)).toHaveLength(1);
    expect(beta).toMatchObject({
      title: 'project · Beta',
      body: 'Approval needed: git push',
      data: { url: sessionLink(sessions.beta, 'b1'), approvalId: 'b1' },
    });
    await page.screenshot({ path: screenshotPath('devices-push-session-open') });

    await deliver(approvalPush('accept'));
    await waitUntil(
      async () => (await shownNotifications(page)).length === 0,
      "the answered approval's notification is withdrawn",
      20_000,
    );
    expect(await shownTags()).toEqual([alphaAgain.notification.tag, 'approval:b1', 'approval:b1']);

    // A push the worker cannot read still shows something.
    await cdp.send('ServiceWorker.deliverPushMessage', {
      origin: runtime.appOrigin,
      registrationId,
      data: '{"not":"ours"}',
    });
    await waitUntil(
      async () => (await shownNotifications(page)).some((n) => n.title === 'HB Code'),
      'an unreadable push shows a notification',
      20_000,
    );
  }, 60_000);

  it('PUSH-1 the permission is asked only when the user taps "Turn on notifications", never on load', async () => {
    const asks = () => page.evaluate(() => (window as unknown as { permissionAsks: number }).permissionAsks);
    await page.getByRole('link', { name: 'Devices' }).click();
    const turnOn = page.getByRole('button', { name: 'Turn on notifications' });
    await turnOn.waitFor();
    await page.reload();
    await turnOn.waitFor();
    expect(await asks()).toBe(0);
    await turnOn.click();
    // This Chromium has no push service of its own: subscribing fails, and the screen says so.
    const outcome = page
      .getByRole('alert')
      .filter({ hasText: /\S/ })
      .or(page.getByText('Notifications are on for this device.'));
    await outcome.first().waitFor({ timeout: 30_000 });
    expect(await asks()).toBe(1);
    await page.screenshot({ path: screenshotPath('devices-push-turn-on') });
  }, 60_000);
});
