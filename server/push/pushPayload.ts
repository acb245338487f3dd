import { DECLARATIVE_PUSH_KEY, type PushMessage, type PushPayload } from '../../lib/protocol/pushMessages';

/** What a withdrawal shows for the moment it takes the worker to close it (iOS revokes a push that shows nothing). */
const WITHDRAWN = { title: 'Approval answered', body: 'It was answered on another device.' };

/**
 * PWA-7: one message as a Declarative Web Push payload. `appOrigin` is where the subscribing
 * device runs the app; the address a tap opens is absolute on it, as the format asks.
 */
export function toPushPayload(message: PushMessage, appOrigin: string): PushPayload {
  const absolute = (path: string) => (appOrigin ? new URL(path, appOrigin).href : path);
  const notification =
    message.type === 'show'
      ? { title: message.title, body: message.body, navigate: absolute(message.url), tag: message.tag }
      : { ...WITHDRAWN, navigate: absolute('/'), tag: message.tag, silent: true };
  return { web_push: DECLARATIVE_PUSH_KEY, notification: { ...notification, data: { message } }, mutable: true };
}
