import { describe, expect, it } from 'vitest';
import { deleteSessionWithReferences } from '../../../../server/runtime/sessions/deleteSession';
import { CommandOutputStore } from '../../../../server/runtime/output/commandOutputStore';
import { sessionMessageOperationId } from '../../../../server/runtime/sendLedger/sessionMessages';
import { silentLogger } from '../../../../server/runtime/log';
import { openSessionMessageStore } from '../../../fixtures/sessionMessageStore';
import { makeTempDir } from '../../../fixtures/tempDir';

function twoSessions(maxHops?: number) {
  const dir = makeTempDir('hbcode-session-messages-');
  const store = openSessionMessageStore(dir, maxHops);
  return { dir, store, asker: store.newSession('Asker'), helper: store.newSession('Helper') };
}

describe('MSG-1 MSG-2 a message between sessions is queued with its record, once', () => {
  it('MSG-2 the recipient gets one queued run, one outbox entry and one record; a retry of the call answers the same run', () => {
    const { store, asker, helper } = twoSessions();
    const request = {
      senderSessionId: asker,
      senderCallId: 'call-1',
      senderRunId: null,
      recipientSessionId: helper,
      text: 'What is 6 × 7?',
      needsApproval: false,
    };
    const first = store.messages.send(request);
    expect(first.created?.state).toBe('queued');
    expect(first.record).toMatchObject({
      senderSessionId: asker,
      recipientSessionId: helper,
      hop: 1,
      delivery: 'sent',
    });
    const again = store.messages.send(request);
    expect(again.created).toBeUndefined();
    expect(again.answer.runId).toBe(first.answer.runId);
    expect(store.rowsOf(helper, first.answer.operationId)).toEqual({ runs: 1, outbox: 1, identity: 1, records: 1 });
    expect(store.outbox.undelivered()).toEqual([first.answer.runId]);
    // MSG-1: the recipient's message row names the session that sent it.
    expect(store.sessions.run(first.answer.runId)?.fromSession).toEqual({
      sessionId: asker,
      title: 'Asker',
      hop: 1,
      delivery: 'sent',
    });
  });

  it('MSG-2 the same call id with another text is a conflict and writes nothing more', () => {
    const { store, asker, helper } = twoSessions();
    const request = {
      senderSessionId: asker,
      senderCallId: 'call-1',
      senderRunId: null,
      recipientSessionId: helper,
      text: 'First',
      needsApproval: false,
    };
    const first = store.messages.send(request);
    expect(() => store.messages.send({ ...request, text: 'Second' })).toThrow(
      expect.objectContaining({ code: 'conflict' }),
    );
    expect(store.rowsOf(helper, first.answer.operationId)).toEqual({ runs: 1, outbox: 1, identity: 1, records: 1 });
  });

  it('MSG-2 a failed record leaves no queue entry, and a failed queue entry leaves no record', () => {
    for (const table of ['chat_session_messages', 'chat_outbox']) {
      const { store, asker, helper } = twoSessions();
      store.db.exec(
        `CREATE TEMP TRIGGER refuse AFTER INSERT ON main.${table} BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`,
      );
      expect(() =>
        store.messages.send({
          senderSessionId: asker,
          senderCallId: 'call-1',
          senderRunId: null,
          recipientSessionId: helper,
          text: 'Hello',
          needsApproval: false,
        }),
      ).toThrow('refused by the test');
      expect(store.rowsOf(helper, sessionMessageOperationId(asker, 'call-1'))).toEqual({
        runs: 0,
        outbox: 0,
        identity: 0,
        records: 0,
      });
      // The same call goes through once the store takes it again.
      store.db.exec('DROP TRIGGER temp.refuse');
      const sent = store.messages.send({
        senderSessionId: asker,
        senderCallId: 'call-1',
        senderRunId: null,
        recipientSessionId: helper,
        text: 'Hello',
        needsApproval: false,
      });
      expect(store.rowsOf(helper, sent.answer.operationId)).toEqual({ runs: 1, outbox: 1, identity: 1, records: 1 });
    }
  });

  it('MSG-1 the store refuses a record with hop 0 or an unknown delivery', () => {
    const { store, asker, helper } = twoSessions();
    const insert = store.db.prepare(
      "INSERT INTO chat_session_messages (operation_id, recipient_session_id, sender_session_id, sender_call_id, chain_id, hop, delivery, created_at) VALUES (?, ?, ?, ?, 'c', ?, ?, 0)",
    );
    expect(() => insert.run('op-a', helper, asker, 'call-a', 0, 'sent')).toThrow(/CHECK/);
    expect(() => insert.run('op-b', helper, asker, 'call-b', 1, 'lost')).toThrow(/CHECK/);
    insert.run('op-c', helper, asker, 'call-c', 1, 'sent');
    expect(() => insert.run('op-d', helper, asker, 'call-c', 1, 'sent')).toThrow(/UNIQUE/);
  });
});

describe('MSG-3 a chain of messages stops at the hop limit', () => {
  it('MSG-3 a message sent by a turn that a message started is one hop further, and the hop past the limit is refused with nothing written', () => {
    const { store, asker, helper } = twoSessions(3);
    let senderSessionId = asker;
    let recipientSessionId = helper;
    let senderRunId: string | null = null;
    const chain: string[] = [];
    for (let hop = 1; hop <= 3; hop++) {
      const sent = store.messages.send({
        senderSessionId,
        senderCallId: `call-${hop}`,
        senderRunId,
        recipientSessionId,
        text: `Hop ${hop}`,
        needsApproval: false,
      });
      expect(sent.record.hop).toBe(hop);
      chain.push(sent.record.chainId);
      senderRunId = sent.answer.runId;
      [senderSessionId, recipientSessionId] = [recipientSessionId, senderSessionId];
    }
    expect(new Set(chain).size).toBe(1);
    const past = {
      senderSessionId,
      senderCallId: 'call-4',
      senderRunId,
      recipientSessionId,
      text: 'Hop 4',
      needsApproval: false,
    };
    expect(() => store.messages.send(past)).toThrow(
      expect.objectContaining({ code: 'conflict', data: { reason: 'hop_limit', maxHops: 3 } }),
    );
    expect(store.rowsOf(recipientSessionId, sessionMessageOperationId(senderSessionId, 'call-4'))).toEqual({
      runs: 0,
      outbox: 0,
      identity: 0,
      records: 0,
    });
    // A turn the person started begins a new chain at hop 1.
    const own = store.messages.send({ ...past, senderCallId: 'call-5', senderRunId: null });
    expect(own.record.hop).toBe(1);
    expect(own.record.chainId).not.toBe(chain[0]);
  });
});

describe('MSG-4 a message that needs the person approval waits', () => {
  it('MSG-4 it is queued with its record but not handed on at start-up; approval makes it sent, and a second answer is a conflict', () => {
    const { store, asker, helper } = twoSessions();
    const sent = store.messages.send({
      senderSessionId: asker,
      senderCallId: 'call-1',
      senderRunId: null,
      recipientSessionId: helper,
      text: 'May I?',
      needsApproval: true,
    });
    expect(sent.record.delivery).toBe('needs-approval');
    expect(store.rowsOf(helper, sent.answer.operationId)).toEqual({ runs: 1, outbox: 1, identity: 1, records: 1 });
    expect(store.outbox.undelivered()).toEqual([]);
    expect(store.messages.waiting(helper).map((r) => r.operationId)).toEqual([sent.answer.operationId]);
    expect(store.messages.decide(helper, sent.answer.operationId, 'sent').delivery).toBe('sent');
    expect(store.outbox.undelivered()).toEqual([sent.answer.runId]);
    expect(() => store.messages.decide(helper, sent.answer.operationId, 'declined')).toThrow(
      expect.objectContaining({ code: 'conflict' }),
    );
    expect(() => store.messages.decide(asker, sent.answer.operationId, 'sent')).toThrow(
      expect.objectContaining({ code: 'not_found' }),
    );
  });

  it('MSG-4 a declined message ends cancelled and leaves the queue', () => {
    const { store, asker, helper } = twoSessions();
    const sent = store.messages.send({
      senderSessionId: asker,
      senderCallId: 'call-1',
      senderRunId: null,
      recipientSessionId: helper,
      text: 'May I?',
      needsApproval: true,
    });
    expect(store.messages.decide(helper, sent.answer.operationId, 'declined').delivery).toBe('declined');
    expect(store.sessions.run(sent.answer.runId)).toMatchObject({
      state: 'cancelled',
      fromSession: { delivery: 'declined' },
    });
    expect(store.rowsOf(helper, sent.answer.operationId)).toMatchObject({ outbox: 0, records: 1 });
    expect(store.messages.waiting(helper)).toEqual([]);
  });
});

describe('MSG-5 the record goes with either session', () => {
  it('MSG-5 deleting the sender or the recipient removes the record', () => {
    for (const deleted of ['sender', 'recipient'] as const) {
      const { dir, store, asker, helper } = twoSessions();
      const sent = store.messages.send({
        senderSessionId: asker,
        senderCallId: 'call-1',
        senderRunId: null,
        recipientSessionId: helper,
        text: 'Hello',
        needsApproval: false,
      });
      const outputs = new CommandOutputStore(store.db, `${dir}/command-outputs`, silentLogger);
      expect(
        deleteSessionWithReferences(store.sessions, outputs, store.outbox, deleted === 'sender' ? asker : helper),
      ).toBe(true);
      expect(store.messages.record(sent.answer.operationId)).toBeUndefined();
    }
  });
});
