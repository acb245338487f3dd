import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalSchema } from '../../../../lib/protocol/agents';
import type { PushMessage } from '../../../../lib/protocol/pushMessages';
import { DeviceAuth } from '../../../../server/auth/deviceAuth';
import { PushNotifications } from '../../../../server/push/pushNotifications';
import type { PushOutcome } from '../../../../server/push/pushSender';
import { silentLogger } from '../../../../server/runtime/log';
import { MIGRATIONS_DIR } from '../../../../server/runtime/paths';
import { openDatabase, type Db } from '../../../../server/runtime/store/database';

const ALL = { approval: true, turnFinished: true, failed: true };
const keys = { p256dh: 'BPublicKeyOfTheBrowser', auth: 'authSecret' };
const approvalEvent = (id: string, decision: 'accept' | null) => ({
  type: 'notification' as const,
  notification: {
    method: 'approval.changed' as const,
    params: {
      sessionId: 's1',
      approval: ApprovalSchema.parse({
        id,
        sessionId: 's1',
        runId: 'r1',
        command: 'rm -rf build',
        reason: null,
        createdAt: 1,
        decision,
      }),
    },
  },
});

describe('PUSH-1 the runtime side of Web Push, with the push service replaced', () => {
  let dir: string;
  let db: Db;
  let deviceId: string;
  let sent: { endpoint: string; message: PushMessage }[];
  let answers: Map<string, PushOutcome>;
  let push: PushNotifications;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-push-'));
    db = openDatabase(path.join(dir, 'hbcode.db'), MIGRATIONS_DIR);
    const auth = new DeviceAuth(db, undefined);
    deviceId = auth.redeem(auth.createPairingCode().code, 'Phone')!.deviceId;
    sent = [];
    answers = new Map();
    push = new PushNotifications({
      db,
      dataDir: dir,
      vapidSubject: 'mailto:me@example.org',
      log: silentLogger,
      namesOf: () => ({ projectName: 'shop', sessionTitle: 'Fix login' }),
      send: async (subscription, message) => {
        sent.push({ endpoint: subscription.endpoint, message });
        return answers.get(subscription.endpoint) ?? 'sent';
      },
    });
  });
  afterEach(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('PUSH-1 an approval is pushed once however often it is published, and its answer withdraws it', async () => {
    push.subscribe(deviceId, { endpoint: 'https://push.example/a', keys }, ALL, 'http://hbcode.localhost:8787');
    push.onRuntimeEvent(approvalEvent('a1', null));
    push.onRuntimeEvent(approvalEvent('a1', null));
    push.onRuntimeEvent(approvalEvent('a1', 'accept'));
    push.onRuntimeEvent(approvalEvent('a1', 'accept'));
    await push.settled();
    expect(sent.map((s) => s.message.type)).toEqual(['show', 'withdraw']);
    expect(sent[1]!.message).toEqual({ type: 'withdraw', tag: 'approval:a1' });
  });

  it('PUSH-1 an answer is not pushed for an approval this runtime never notified', async () => {
    push.subscribe(deviceId, { endpoint: 'https://push.example/a', keys }, ALL, 'http://hbcode.localhost:8787');
    push.onRuntimeEvent(approvalEvent('a2', 'accept'));
    await push.settled();
    expect(sent).toEqual([]);
  });

  it('PUSH-1 a subscription answered 404 or 410 is deleted; one that failed otherwise is kept', async () => {
    for (const name of ['gone', 'failed', 'fine'])
      push.subscribe(deviceId, { endpoint: `https://push.example/${name}`, keys }, ALL, 'http://hbcode.localhost:8787');
    answers.set('https://push.example/gone', 'gone');
    answers.set('https://push.example/failed', 'failed');
    push.onRuntimeEvent(approvalEvent('a3', null));
    await push.settled();
    expect(sent).toHaveLength(3);
    expect(push.subscriptionsOf(deviceId).map((s) => s.endpoint)).toEqual([
      'https://push.example/failed',
      'https://push.example/fine',
    ]);
  });

  it('PUSH-1 a revoked device loses its subscriptions; a device removes only its own', () => {
    push.subscribe(deviceId, { endpoint: 'https://push.example/a', keys }, ALL, 'http://hbcode.localhost:8787');
    push.unsubscribe('another-device', 'https://push.example/a');
    expect(push.subscriptionsOf(deviceId)).toHaveLength(1);
    push.onRuntimeEvent({ type: 'device.revoked', deviceId });
    expect(push.subscriptionsOf(deviceId)).toEqual([]);
  });
});
