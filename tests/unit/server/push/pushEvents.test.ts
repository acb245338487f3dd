import { describe, expect, it } from 'vitest';
import { ApprovalSchema } from '../../../../lib/protocol/agents';
import type { RpcNotification } from '../../../../lib/protocol/notifications';
import type { CommandRow, MessageRow } from '../../../../lib/protocol/rows';
import { pushIntentFor } from '../../../../server/push/pushEvents';

const names = (sessionId: string) => (sessionId === 's1' ? { projectName: 'shop', sessionTitle: 'Fix login' } : null);
const approval = (decision: 'accept' | null, expired: string | null = null) =>
  ApprovalSchema.parse({
    id: 'a1',
    sessionId: 's1',
    runId: 'r1',
    command: 'rm -rf build',
    reason: null,
    createdAt: 1,
    decision,
    expired,
  });
const message = (state: MessageRow['state']): MessageRow => ({
  kind: 'message',
  id: 'm1',
  sessionId: 's1',
  operationId: 'o1',
  runId: 'r1',
  text: 'deploy it',
  state,
  createdAt: 1,
});
const command = (status: CommandRow['status'], exitCode: number | null): CommandRow => ({
  kind: 'command',
  id: 'c1',
  sessionId: 's1',
  runId: 'r1',
  commandId: '1',
  command: 'npm test',
  status,
  exitCode,
  byteLength: 0,
  generation: 1,
  complete: true,
  sourceIncomplete: false,
  startedAt: 1,
  endedAt: 2,
});
const row = (r: MessageRow | CommandRow): RpcNotification => ({
  method: 'timeline.row',
  params: { sessionId: 's1', row: r },
});

describe('PUSH-1 which runtime notifications push', () => {
  it('PUSH-1 a waiting approval names project and session and opens the approval; its answer withdraws it by tag', () => {
    const asked = pushIntentFor(
      { method: 'approval.changed', params: { sessionId: 's1', approval: approval(null) } },
      names,
    );
    expect(asked).toMatchObject({
      event: 'approval',
      message: {
        type: 'show',
        title: 'shop · Fix login',
        tag: 'approval:a1',
        approvalId: 'a1',
        url: '/#/?session=s1&approval=a1',
      },
    });
    const answered = pushIntentFor(
      { method: 'approval.changed', params: { sessionId: 's1', approval: approval('accept') } },
      names,
    );
    expect(answered).toMatchObject({ event: 'approval', message: { type: 'withdraw', tag: 'approval:a1' } });
    expect(
      pushIntentFor(
        { method: 'approval.changed', params: { sessionId: 's1', approval: approval(null, 'runtime restarted') } },
        names,
      ),
    ).toBeNull();
  });

  it('PUSH-1 a turn that is done or failed pushes; queued, running and cancelled do not', () => {
    expect(pushIntentFor(row(message('done')), names)).toMatchObject({
      event: 'turnFinished',
      message: { tag: 'run:r1', body: 'Turn finished: deploy it' },
    });
    expect(pushIntentFor(row(message('failed')), names)).toMatchObject({
      event: 'failed',
      message: { body: 'Turn failed: deploy it' },
    });
    for (const state of ['queued', 'running', 'cancelled'] as const)
      expect(pushIntentFor(row(message(state)), names)).toBeNull();
  });

  it('PUSH-1 a command that exits non-zero or fails to run pushes; one that succeeds or runs does not', () => {
    expect(pushIntentFor(row(command('exited', 2)), names)).toMatchObject({
      event: 'failed',
      message: { body: 'Command failed (exit 2): npm test' },
    });
    expect(pushIntentFor(row(command('failed', null)), names)).toMatchObject({ event: 'failed' });
    expect(pushIntentFor(row(command('exited', 0)), names)).toBeNull();
    expect(pushIntentFor(row(command('running', null)), names)).toBeNull();
  });

  it('PUSH-1 a session that no longer exists pushes nothing', () => {
    expect(
      pushIntentFor(
        { method: 'timeline.row', params: { sessionId: 'gone', row: { ...message('done'), sessionId: 'gone' } } },
        names,
      ),
    ).toBeNull();
  });
});
