import type { PushEventKind } from '../../lib/protocol/push';
import type { PushMessage } from '../../lib/protocol/pushMessages';
import type { RpcNotification } from '../../lib/protocol/notifications';
import type { CommandRow, MessageRow } from '../../lib/protocol/rows';
import type { Approval } from '../../lib/protocol/agents';

/** What a notification says about where it happened (PUSH-1: it names the project and session). */
export interface SessionNames {
  projectName: string;
  sessionTitle: string;
}

/** One push to send: to the subscriptions that chose `event`. */
export interface PushIntent {
  event: PushEventKind;
  /** The same key is never pushed twice (a row is published again as it changes). */
  onceKey: string;
  message: PushMessage;
}

/** The address a tap opens: the session, and the approval in it (PUSH-1). */
export function sessionLink(sessionId: string, approvalId: string | null): string {
  const query = new URLSearchParams({ session: sessionId });
  if (approvalId) query.set('approval', approvalId);
  return `/#/?${query.toString()}`;
}

export const approvalTag = (approvalId: string) => `approval:${approvalId}`;

function shown(
  event: PushEventKind,
  onceKey: string,
  tag: string,
  names: SessionNames,
  sessionId: string,
  body: string,
  approvalId: string | null = null,
): PushIntent {
  return {
    event,
    onceKey,
    message: {
      type: 'show',
      event,
      tag,
      title: `${names.projectName} · ${names.sessionTitle}`,
      body,
      sessionId,
      approvalId,
      url: sessionLink(sessionId, approvalId),
    },
  };
}

const oneLine = (text: string, max = 140) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

function approvalIntent(approval: Approval, names: SessionNames): PushIntent | null {
  if (approval.expired !== null) return null;
  if (approval.decision === null)
    return shown(
      'approval',
      `approval:${approval.id}:asked`,
      approvalTag(approval.id),
      names,
      approval.sessionId,
      `Approval needed: ${oneLine(approval.command)}`,
      approval.id,
    );
  // Answered here or on any device: every device withdraws its notification of it (PUSH-1).
  return {
    event: 'approval',
    onceKey: `approval:${approval.id}:answered`,
    message: { type: 'withdraw', tag: approvalTag(approval.id) },
  };
}

function messageIntent(row: MessageRow, names: SessionNames): PushIntent | null {
  const tag = `run:${row.runId}`;
  if (row.state === 'done')
    return shown(
      'turnFinished',
      `run:${row.runId}:done`,
      tag,
      names,
      row.sessionId,
      `Turn finished: ${oneLine(row.text)}`,
    );
  if (row.state === 'failed') {
    const why = row.failure ? ` — ${oneLine(row.failure.message)}` : '';
    return shown(
      'failed',
      `run:${row.runId}:failed`,
      tag,
      names,
      row.sessionId,
      `Turn failed: ${oneLine(row.text)}${why}`,
    );
  }
  return null;
}

function commandIntent(row: CommandRow, names: SessionNames): PushIntent | null {
  const failed = row.status === 'failed' || (row.status === 'exited' && row.exitCode !== null && row.exitCode !== 0);
  if (!failed) return null;
  const how = row.status === 'failed' ? (row.error ? oneLine(row.error) : 'could not run') : `exit ${row.exitCode}`;
  return shown(
    'failed',
    `command:${row.runId}:${row.commandId}:${row.generation}`,
    `command:${row.runId}:${row.commandId}`,
    names,
    row.sessionId,
    `Command failed (${how}): ${oneLine(row.command)}`,
  );
}

/**
 * The push a runtime notification calls for, if any (PUSH-1): an approval waiting or answered,
 * a turn done or failed, a command failed. Read from what the runtime publishes, so the agents
 * and the approvals store need not know about push.
 */
export function pushIntentFor(
  notification: RpcNotification,
  namesOf: (sessionId: string) => SessionNames | null,
): PushIntent | null {
  if (notification.method === 'approval.changed') {
    const names = namesOf(notification.params.sessionId);
    return names && approvalIntent(notification.params.approval, names);
  }
  if (notification.method !== 'timeline.row') return null;
  const { row } = notification.params;
  if (row.kind !== 'message' && row.kind !== 'command') return null;
  const names = namesOf(notification.params.sessionId);
  if (!names) return null;
  return row.kind === 'message' ? messageIntent(row, names) : commandIntent(row, names);
}
