import { describe, expect, test } from 'vitest';
import {
  CLAIM_LEASE_MS,
  SENT_KEEP_MS,
  claimEntry,
  classifySendFailure,
  entriesToShow,
  isExpiredSent,
  pickNextToSend,
  retryEntry,
  settleEntry,
  type OutboxRecord,
} from '../../../lib/client/outboxRules';
import { RpcError } from '../../../lib/client/rpcClient';

const NOW = 1_700_000_000_000;

function entry(operationId: string, fields: Partial<OutboxRecord> = {}): OutboxRecord {
  return { operationId, sessionId: 's1', createdAt: NOW - 1000, seq: 1, state: 'queued', attempts: 0, ...fields };
}

const noTabs = { now: NOW, liveTabs: new Set<string>() };

describe('pickNextToSend', () => {
  test('PWA-4 sends a session in seq order, whatever order the store returns', () => {
    const entries = [entry('c', { seq: 3 }), entry('a', { seq: 1 }), entry('b', { seq: 2 })];
    expect(pickNextToSend(entries, noTabs).entry?.operationId).toBe('a');
  });

  test('PWA-4 a session waits while its first entry is being sent by a live tab', () => {
    const entries = [
      entry('a', { seq: 1, state: 'sending', claimedBy: 'tab-1', claimedUntil: NOW + 5000 }),
      entry('b', { seq: 2 }),
    ];
    const next = pickNextToSend(entries, { now: NOW, liveTabs: new Set(['tab-1']) });
    expect(next.entry).toBeNull();
    expect(next.recheckAt).toBe(NOW + 5000);
    expect(next.blockedBy).toEqual(['tab-1']);
  });

  test('PWA-4 a claim of a closed tab is taken over at once', () => {
    const entries = [
      entry('a', { seq: 1, state: 'sending', claimedBy: 'gone', claimedUntil: NOW + 5000 }),
      entry('b', { seq: 2 }),
    ];
    expect(pickNextToSend(entries, { now: NOW, liveTabs: new Set(['tab-1']) }).entry?.operationId).toBe('a');
  });

  test('PWA-4 a claim whose lease ran out is taken over, also without Web Locks', () => {
    const entries = [entry('a', { state: 'sending', claimedBy: 'tab-1', claimedUntil: NOW - 1 })];
    expect(pickNextToSend(entries, { now: NOW, liveTabs: null }).entry?.operationId).toBe('a');
    const held = [entry('a', { state: 'sending', claimedBy: 'tab-1', claimedUntil: NOW + 1 })];
    expect(pickNextToSend(held, { now: NOW, liveTabs: null }).entry).toBeNull();
  });

  test('PWA-4 sent and failed entries do not hold back later ones', () => {
    const entries = [
      entry('a', { seq: 1, state: 'sent' }),
      entry('b', { seq: 2, state: 'failed' }),
      entry('c', { seq: 3 }),
    ];
    expect(pickNextToSend(entries, noTabs).entry?.operationId).toBe('c');
  });

  test('PWA-4 a busy session does not hold back another; the oldest head goes first', () => {
    const entries = [
      entry('a', { sessionId: 's1', state: 'sending', claimedBy: 'tab-1', claimedUntil: NOW + 5000 }),
      entry('b', { sessionId: 's2', createdAt: NOW - 10 }),
      entry('c', { sessionId: 's3', createdAt: NOW - 20 }),
    ];
    expect(pickNextToSend(entries, { now: NOW, liveTabs: new Set(['tab-1']) }).entry?.operationId).toBe('c');
  });

  test('PWA-4 nothing to send', () => {
    expect(pickNextToSend([entry('a', { state: 'sent' })], noTabs)).toEqual({
      entry: null,
      recheckAt: null,
      blockedBy: [],
    });
  });
});

describe('claim and settle', () => {
  test('PWA-4 a claim marks the entry sending for one lease and counts the attempt', () => {
    const claimed = claimEntry(entry('a', { attempts: 1, error: 'old' }), 'tab-1', NOW);
    expect(claimed).toMatchObject({
      state: 'sending',
      attempts: 2,
      claimedBy: 'tab-1',
      claimedUntil: NOW + CLAIM_LEASE_MS,
    });
    expect(claimed.error).toBeUndefined();
  });

  test('PWA-4 STO-3 a confirmation marks it sent with its run, and is kept once', () => {
    const claimed = claimEntry(entry('a'), 'tab-1', NOW);
    const sent = settleEntry(claimed, { kind: 'sent', runId: 'r1', runState: 'queued' }, 'tab-1', NOW + 5);
    expect(sent).toMatchObject({ state: 'sent', runId: 'r1', runState: 'queued', sentAt: NOW + 5 });
    expect(sent?.claimedBy).toBeUndefined();
    expect(settleEntry(sent!, { kind: 'sent', runId: 'r1', runState: 'queued' }, 'tab-2', NOW + 9)).toBeNull();
  });

  test('PWA-4 a lost connection puts only this tab’s claim back in line', () => {
    const claimed = claimEntry(entry('a'), 'tab-1', NOW);
    expect(settleEntry(claimed, { kind: 'requeue' }, 'tab-1', NOW)).toMatchObject({ state: 'queued', attempts: 1 });
    // Another tab took the claim over meanwhile: its send is in flight, leave it alone.
    expect(settleEntry(claimed, { kind: 'requeue' }, 'tab-2', NOW)).toBeNull();
  });

  test('PWA-4 a refusal fails the entry with the message, never over a confirmation', () => {
    const claimed = claimEntry(entry('a'), 'tab-1', NOW);
    expect(settleEntry(claimed, { kind: 'fail', message: 'No such session.' }, 'tab-1', NOW)).toMatchObject({
      state: 'failed',
      error: 'No such session.',
    });
    const sent = settleEntry(claimed, { kind: 'sent', runId: 'r1', runState: 'running' }, 'tab-2', NOW)!;
    expect(settleEntry(sent, { kind: 'fail', message: 'late' }, 'tab-1', NOW)).toBeNull();
  });

  test('PWA-4 retry puts only a failed entry back in line, with the same operation id', () => {
    const failed = entry('a', { state: 'failed', error: 'No such session.', attempts: 1 });
    expect(retryEntry(failed)).toEqual({ ...entry('a', { attempts: 1 }) });
    expect(retryEntry(entry('a'))).toBeNull();
  });
});

describe('classifySendFailure', () => {
  test('PWA-4 a closed connection resends on the next one', () => {
    expect(classifySendFailure(new RpcError('closed', 'The connection closed (1006 ).'), true)).toEqual({
      kind: 'requeue',
    });
    expect(classifySendFailure(new RpcError('unauthorized', 'Revoked.'), false)).toEqual({ kind: 'requeue' });
    expect(classifySendFailure(new Error('socket gone'), true)).toEqual({ kind: 'requeue' });
  });

  test('PWA-4 RPC-3 an error answer about the message fails it with the runtime’s message', () => {
    for (const code of ['conflict', 'not_found', 'invalid_params'] as const) {
      expect(classifySendFailure(new RpcError(code, `${code} message`), false)).toEqual({
        kind: 'fail',
        message: `${code} message`,
      });
    }
    expect(classifySendFailure(new Error('weird'), false)).toEqual({ kind: 'fail', message: 'weird' });
  });
});

describe('what the timeline shows', () => {
  test('PWA-4 an entry the runtime timeline already shows is not shown twice; failed ones always show', () => {
    const entries = [
      entry('sent-shown', { seq: 1, state: 'sent' }),
      entry('sent-pending', { seq: 2, state: 'sent' }),
      entry('sending-shown', { seq: 3, state: 'sending' }),
      entry('failed', { seq: 5, state: 'failed' }),
      entry('queued', { seq: 4 }),
    ];
    const shown = entriesToShow(entries, new Set(['sent-shown', 'sending-shown', 'failed']));
    expect(shown.map((e) => e.operationId)).toEqual(['sent-pending', 'queued', 'failed']);
  });

  test('PWA-4 sent entries expire a day after they were sent; unsent ones never', () => {
    expect(isExpiredSent(entry('a', { state: 'sent', sentAt: NOW - SENT_KEEP_MS - 1 }), NOW)).toBe(true);
    expect(isExpiredSent(entry('a', { state: 'sent', createdAt: NOW - 3 * SENT_KEEP_MS, sentAt: NOW - 10 }), NOW)).toBe(
      false,
    );
    expect(isExpiredSent(entry('a', { state: 'queued', createdAt: NOW - 3 * SENT_KEEP_MS }), NOW)).toBe(false);
  });
});
