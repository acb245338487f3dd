/// <reference lib="webworker" />
import { NotificationDataSchema, PushMessageSchema, ViewingSessionMessageSchema, type PushMessage, type WorkerToPageMessage } from '../protocol/pushMessages';

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

async function receivePush(self: ServiceWorkerGlobalScope, message: PushMessage): Promise<void> {
  if (message.type === 'withdraw') {
    // An approval answered on any device: its notification goes away everywhere (PUSH-1).
    for (const notification of await self.registration.getNotifications({ tag: message.tag })) notification.close();
    return;
  }
  if (await isSessionOnScreen(self, message.sessionId)) return;
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
  self.addEventListener('push', (event: PushEvent) => {
    let payload: unknown;
    try {
      payload = event.data?.json();
    } catch {
      return;
    }
    const message = PushMessageSchema.safeParse(payload);
    if (message.success) event.waitUntil(receivePush(self, message.data));
  });
  self.addEventListener('notificationclick', (event: NotificationEvent) => {
    event.waitUntil(openNotifiedSession(self, event.notification));
  });
}
