/// <reference lib="webworker" />
import {
  NotificationDataSchema,
  PushPayloadSchema,
  ViewingSessionMessageSchema,
  type PushMessage,
  type WorkerToPageMessage,
} from '../protocol/pushMessages';

/** How long a page has to say which session it shows before the notification is shown anyway. */
const PAGE_REPLY_TIMEOUT_MS = 1000;

/** Asks one page which session it shows; null when it does not answer in time. */
function sessionShownBy(client: WindowClient): Promise<string | null> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    const timer = setTimeout(() => resolve(null), PAGE_REPLY_TIMEOUT_MS);
    channel.port1.onmessage = (event: MessageEvent) => {
      clearTimeout(timer);
      const reply = ViewingSessionMessageSchema.safeParse(event.data);
      resolve(reply.success ? reply.data.sessionId : null);
    };
    const question: WorkerToPageMessage = { type: 'WHICH_SESSION' };
    client.postMessage(question, [channel.port2]);
  });
}

/**
 * PUSH-1: news of a session is not notified on the device where the user is looking at that
 * session. The worker may have been stopped since the page last spoke, so it asks the visible,
 * focused pages now rather than remembering what they said.
 */
async function isSessionOnScreen(self: ServiceWorkerGlobalScope, sessionId: string): Promise<boolean> {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const looking = windows.filter((client) => client.visibilityState === 'visible' && client.focused);
  const shown = await Promise.all(looking.map(sessionShownBy));
  return shown.includes(sessionId);
}

/**
 * PWA-7: iOS revokes a subscription whose pushes show nothing, so every push shows a notification.
 * One that must not stay (a withdrawal, news of the session on screen) is shown silently and
 * closed at once, taking any older one with its tag along.
 */
async function showAndClose(self: ServiceWorkerGlobalScope, tag: string, title: string, body: string): Promise<void> {
  await self.registration.showNotification(title, { body, tag, silent: true });
  for (const notification of await self.registration.getNotifications({ tag })) notification.close();
}

/** A push that is not ours (or from a newer runtime the worker cannot read): still shown (PWA-7). */
const UNREADABLE = {
  tag: 'hbcode-news',
  title: 'HB Code',
  body: 'Something happened on your desktop. Open the app to see it.',
};

async function receivePush(
  self: ServiceWorkerGlobalScope,
  message: PushMessage,
  title: string,
  body: string,
): Promise<void> {
  // An approval answered on any device: its notification goes away everywhere (PUSH-1).
  if (message.type === 'withdraw') return showAndClose(self, message.tag, title, body);
  if (await isSessionOnScreen(self, message.sessionId))
    return showAndClose(self, message.tag, message.title, message.body);
  await self.registration.showNotification(message.title, {
    body: message.body,
    tag: message.tag,
    icon: '/icons/icon-192.png',
    data: { url: message.url, sessionId: message.sessionId, approvalId: message.approvalId },
  });
}

/** A tap opens the session (and its approval): in a page already open if there is one, else in a new one. */
async function openNotifiedSession(self: ServiceWorkerGlobalScope, notification: Notification): Promise<void> {
  notification.close();
  const data = NotificationDataSchema.safeParse(notification.data);
  const url = new URL(data.success ? data.data.url : '/', self.location.origin).href;
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((client) => client.focused) ?? windows[0];
  if (!open) {
    await self.clients.openWindow(url);
    return;
  }
  // NOTE: a page the worker does not control (the first visit) cannot be navigated by it, so
  // the page is asked to open the address itself.
  const message: WorkerToPageMessage = { type: 'OPEN_SESSION', url };
  open.postMessage(message);
  await open.focus().catch(() => undefined);
}

/** Web Push in the app's worker (PUSH-1): show or withdraw what the runtime pushed, open it when tapped. */
export function startPushHandlers(self: ServiceWorkerGlobalScope): void {
  // PWA-7: the payload is a declarative one (iOS 18.4+ shows it by itself); here every browser shows the same.
  self.addEventListener('push', (event: PushEvent) => {
    let payload: unknown = null;
    try {
      payload = event.data?.json();
    } catch {
      // Not JSON: shown as unreadable below.
    }
    const parsed = PushPayloadSchema.safeParse(payload);
    if (!parsed.success) {
      event.waitUntil(
        self.registration.showNotification(UNREADABLE.title, {
          body: UNREADABLE.body,
          tag: UNREADABLE.tag,
          icon: '/icons/icon-192.png',
        }),
      );
      return;
    }
    const { notification } = parsed.data;
    event.waitUntil(receivePush(self, notification.data.message, notification.title, notification.body));
  });
  self.addEventListener('notificationclick', (event: NotificationEvent) => {
    event.waitUntil(openNotifiedSession(self, event.notification));
  });
}
