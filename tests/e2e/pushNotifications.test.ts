import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PushMessage } from '../../lib/protocol/pushMessages';
import { approvalTag, sessionLink } from '../../server/push/pushEvents';
import { launchChromium } from '../fixtures/browser';
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
    return (await registration.getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data as unknown }));
  });

describe('PUSH-1 the service worker shows, hides and opens pushed notifications', () => {
  let dirs: RuntimeDirs;
  let runtime: RuntimeProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  let registrationId: string;
  const sessions: Record<'alpha' | 'beta', string> = { alpha: '', beta: '' };

  /** A push message as the browser's push service would hand it to the worker (CDP). */
  const deliver = (message: PushMessage) => cdp.send('ServiceWorker.deliverPushMessage', { origin: runtime.appOrigin, registrationId, data: JSON.stringify(message) });
  const show = (sessionId: string, tag: string, body: string, approvalId: string | null = null): PushMessage => ({
    type: 'show',
    event: approvalId ? 'approval' : 'turnFinished',
    tag,
    title: `project · ${sessionId === sessions.alpha ? 'Alpha' : 'Beta'}`,
    body,
    sessionId,
    approvalId,
    url: sessionLink(sessionId, approvalId),
  });

  beforeAll(async () => {
    dirs = makeRuntimeDirs();
    runtime = await startRuntimeProcess({ dataDir: dirs.dataDir, projectDirs: dirs.projectDirs });
    const admin = await runtime.connect();
    const { projects } = await admin.call('projects.list');
    for (const name of ['alpha', 'beta'] as const) {
      sessions[name] = (await admin.call('sessions.create', { projectId: projects[0]!.id, agent: 'shell', title: name === 'alpha' ? 'Alpha' : 'Beta' })).session.id;
    }
    admin.close();
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await context.grantPermissions(['notifications'], { origin: runtime.appOrigin });
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
    await browser?.close();
    await runtime?.stop();
    dirs?.remove();
  });

  it('PUSH-1 a pushed approval shows a notification naming project and session; a tap opens that session', async () => {
    await page.getByText('Alpha').first().waitFor();
    await deliver(show(sessions.alpha, approvalTag('a1'), 'Approval needed: rm -rf build', 'a1'));
    const [shown] = await waitUntil(async () => {
      const list = await shownNotifications(page);
      return list.length > 0 && list;
    }, 'the notification is shown', 20_000);
    expect(shown).toEqual({ title: 'project · Alpha', body: 'Approval needed: rm -rf build', tag: 'approval:a1', data: { url: sessionLink(sessions.alpha, 'a1'), sessionId: sessions.alpha, approvalId: 'a1' } });

    // A tap: the browser fires notificationclick in the worker; here the test fires it there.
    const [worker] = context.serviceWorkers();
    await worker!.evaluate(async (tag) => {
      const scope = self as unknown as { registration: ServiceWorkerRegistration; dispatchEvent(event: Event): boolean };
      const [notification] = await scope.registration.getNotifications({ tag });
      const NotificationEventClass = (self as unknown as { NotificationEvent: new (type: string, init: { notification: Notification }) => Event }).NotificationEvent;
      scope.dispatchEvent(new NotificationEventClass('notificationclick', { notification: notification! }));
    }, 'approval:a1');
    await page.getByRole('heading', { name: 'Alpha' }).waitFor({ timeout: 20_000 });
    await waitUntil(async () => (await shownNotifications(page)).length === 0, 'the tapped notification closes');
  }, 60_000);

  it('PUSH-1 news of the session on screen is not shown there; news of another session is, and an answered approval withdraws it', async () => {
    await page.getByRole('heading', { name: 'Alpha' }).waitFor();
    await deliver(show(sessions.alpha, 'run:alpha-1', 'Turn finished: echo alpha'));
    await deliver(show(sessions.beta, approvalTag('b1'), 'Approval needed: git push', 'b1'));
    await waitUntil(async () => (await shownNotifications(page)).some((n) => n.tag === 'approval:b1'), 'the other session\'s notification', 20_000);
    expect((await shownNotifications(page)).map((n) => n.tag)).toEqual(['approval:b1']);
    await page.screenshot({ path: screenshotPath('devices-push-session-open') });

    await deliver({ type: 'withdraw', tag: approvalTag('b1') });
    await waitUntil(async () => (await shownNotifications(page)).length === 0, 'the answered approval\'s notification is withdrawn', 20_000);
  }, 60_000);
});
