import type { NotificationName, NotificationParams, RpcNotification } from '../../lib/protocol/notifications';

/**
 * What a later notification replaces, for a socket whose updates are held while it does not read
 * (SEC-9): every notification carries the whole new state of what it names, so only the latest
 * of each needs to reach the client. A new notification must say what it names here.
 */
const subjectOf: { [N in NotificationName]: (params: NotificationParams<N>) => string } = {
  'timeline.row': (p) => `${p.sessionId}/${p.row.kind}/${p.row.id}`,
  'sessions.changed': (p) => p.sessionId,
  'preview.changed': (p) => `${p.previewId}/${p.path}`,
  'approval.changed': (p) => `${p.sessionId}/${p.approval.id}`,
  'codex.profile.changed': (p) => `${p.profile.id}/${p.login?.loginId ?? ''}`,
  'usage.changed': (p) => `${p.reading.agent}/${p.reading.accountKey}/${p.reading.window}`,
  'devices.changed': (p) =>
    p.change === 'requested' || p.change === 'declined'
      ? `${p.change}/${p.request.requestId}`
      : p.change === 'guardRailsLifted'
        ? `${p.change}/${p.sessionId}`
        : `${p.change}/${p.deviceId}`,
  // Each removal names its own rows: never folded into another.
  'timeline.removed': (p) => `${p.sessionId}/${p.revision}`,
  // Bytes of a stream: each piece is its own (a client that missed one reads it from the store).
  'terminal.output': (p) => `${p.runId}/${p.commandId}/${p.offset}`,
};

function keyOf<N extends NotificationName>(method: N, params: NotificationParams<N>): string {
  return `${method} ${subjectOf[method](params)}`;
}

export function notificationKey(notification: RpcNotification): string {
  return keyOf(notification.method, notification.params);
}
