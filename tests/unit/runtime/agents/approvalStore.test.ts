import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Approval } from '../../../../lib/protocol/agents';
import { ApprovalRequests, EXPIRED_BY_RESTART } from '../../../../server/runtime/agents/approvals';
import { MIGRATIONS_DIR } from '../../../../server/runtime/paths';
import { SessionStore } from '../../../../server/runtime/sessions/sessionStore';
import { openDatabase, type Db } from '../../../../server/runtime/store/database';

describe('approvals stored in SQLite (ACC-4)', () => {
  let dir: string;
  let file: string;
  let db: Db;
  let sessionId: string;
  let otherSessionId: string;
  const published: Approval[] = [];
  let approvals: ApprovalRequests;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-approvals-'));
    file = path.join(dir, 'hbcode.db');
    db = openDatabase(file, MIGRATIONS_DIR);
    const sessions = new SessionStore(db);
    const projectId = sessions.ensureProjects([dir])[0]!.id;
    sessionId = sessions.createSession(projectId, 'codex', 'a').id;
    otherSessionId = sessions.createSession(projectId, 'codex', 'b').id;
    published.length = 0;
    approvals = new ApprovalRequests(db, (a) => published.push(a));
  });
  afterEach(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const request = () => ({ sessionId, runId: 'r1', command: 'rm -rf build', reason: null });

  it('ACC-4 the first answer wins and is published; a second is a conflict; another session cannot answer', async () => {
    const decision = approvals.ask(request(), new AbortController().signal);
    const [pending] = approvals.pending(sessionId);
    expect(pending).toMatchObject({ kind: 'command', command: 'rm -rf build', decision: null, expired: null });
    expect(() => approvals.answer(otherSessionId, pending!.id, 'accept')).toThrow(
      expect.objectContaining({ code: 'not_found' }),
    );
    expect(approvals.answer(sessionId, pending!.id, 'decline').decision).toBe('decline');
    await expect(decision).resolves.toBe('decline');
    expect(() => approvals.answer(sessionId, pending!.id, 'accept')).toThrow(
      expect.objectContaining({ code: 'conflict' }),
    );
    expect(published.map((a) => a.decision)).toEqual([null, 'decline']);
    expect(approvals.pending(sessionId)).toEqual([]);
  });

  it('ACC-4 a question is answered with its answers; answers on another kind are refused', async () => {
    const question = {
      id: 'q1',
      header: 'Pick',
      question: 'Which one?',
      options: [{ label: 'A', description: null }],
      multiSelect: false,
      allowOther: true,
      secret: false,
    };
    const outcome = approvals.askForAnswers(
      { ...request(), kind: 'question', command: 'Which one?', questions: [question] },
      new AbortController().signal,
    );
    const plain = approvals.ask(request(), new AbortController().signal);
    const listed = approvals.pending(sessionId);
    const asked = listed.find((a) => a.kind === 'question');
    const command = listed.find((a) => a.kind === 'command');
    expect(asked).toMatchObject({ kind: 'question', questions: [question] });
    expect(() => approvals.answer(sessionId, command!.id, 'accept', { q1: ['A'] })).toThrow(
      expect.objectContaining({ code: 'invalid_params' }),
    );
    expect(approvals.answer(sessionId, asked!.id, 'accept', { q1: ['A', 'my own'] }).answers).toEqual({
      q1: ['A', 'my own'],
    });
    await expect(outcome).resolves.toEqual({ decision: 'accept', answers: { q1: ['A', 'my own'] } });
    approvals.answer(sessionId, command!.id, 'acceptForSession');
    await expect(plain).resolves.toBe('acceptForSession');
  });

  it('ACC-4 a pending approval is in the database: another store on the same file lists it (a reload)', () => {
    void approvals.ask({ ...request(), kind: 'fileChange', detail: '--- a\n+++ b\n' }, new AbortController().signal);
    const again = new ApprovalRequests(db, () => undefined);
    expect(again.pending(sessionId)).toEqual([
      expect.objectContaining({ kind: 'fileChange', detail: '--- a\n+++ b\n', decision: null }),
    ]);
  });

  it('ACC-4 after a restart an open approval is expired with the reason, still listed, and an answer to it is a conflict', async () => {
    void approvals.ask(request(), new AbortController().signal);
    db.close();
    db = openDatabase(file, MIGRATIONS_DIR);
    const restarted = new ApprovalRequests(db, (a) => published.push(a));
    restarted.expireAfterRestart();
    const [expired] = restarted.pending(sessionId);
    expect(expired).toMatchObject({ decision: null, expired: EXPIRED_BY_RESTART });
    expect(published.at(-1)).toMatchObject({ id: expired!.id, expired: EXPIRED_BY_RESTART });
    expect(() => restarted.answer(sessionId, expired!.id, 'accept')).toThrow(
      expect.objectContaining({ code: 'conflict', message: expect.stringContaining('expired') }),
    );
  });

  it("ACC-4 when the agent process of a run exits, the run's waiting approval expires and the agent gets cancel", async () => {
    const decision = approvals.ask(request(), new AbortController().signal);
    const other = approvals.ask({ ...request(), runId: 'r2' }, new AbortController().signal);
    approvals.expireRun('r1', 'Codex exited (1).');
    await expect(decision).resolves.toBe('cancel');
    // Both were asked in the same millisecond: compare by run, not by list order.
    const byRun = new Map(approvals.pending(sessionId).map((a) => [a.runId, a]));
    expect(byRun.get('r1')?.expired).toBe('Codex exited (1).');
    expect(byRun.get('r2')?.expired).toBeNull();
    approvals.answer(sessionId, byRun.get('r2')!.id, 'accept');
    await expect(other).resolves.toBe('accept');
  });

  it('SES-5 a cancelled run cancels its waiting approval', async () => {
    const abort = new AbortController();
    const decision = approvals.ask(request(), abort.signal);
    abort.abort('cancel');
    await expect(decision).resolves.toBe('cancel');
    expect(approvals.pending(sessionId)).toEqual([]);
    expect(published.map((a) => a.decision)).toEqual([null, 'cancel']);
  });
});

describe('approvals at shutdown (ACC-4)', () => {
  it('ACC-4 a run stopped by shutdown leaves its approval expired, not cancelled', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hbcode-approvals-'));
    const db = openDatabase(path.join(dir, 'hbcode.db'), MIGRATIONS_DIR);
    try {
      const sessions = new SessionStore(db);
      const sessionId = sessions.createSession(sessions.ensureProjects([dir])[0]!.id, 'codex', 'a').id;
      const approvals = new ApprovalRequests(db, () => undefined);
      const abort = new AbortController();
      const decision = approvals.ask({ sessionId, runId: 'r1', command: 'x', reason: null }, abort.signal);
      abort.abort('shutdown');
      await expect(decision).resolves.toBe('cancel');
      expect(approvals.pending(sessionId)).toEqual([
        expect.objectContaining({ decision: null, expired: EXPIRED_BY_RESTART }),
      ]);
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
