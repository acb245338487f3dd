import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionActivity } from '../../../server/runtime/sessions/sessionActivity';
import { SessionStore } from '../../../server/runtime/sessions/sessionStore';
import { MIGRATIONS_DIR } from '../../../server/runtime/paths';
import { openDatabase } from '../../../server/runtime/store/database';
import { cutLine, displayTitle, hasUnreadChanges, plainTextPreview, sessionState } from '../../../lib/sessions/summary';
import { SessionViews } from '../../../server/runtime/sessions/sessionViews';
import { makeTempDir } from '../../fixtures/tempDir';

describe('The sessions list: previews, titles and states', () => {
  it('UX-8 a preview is plain text: no fences, quote marks, emphasis, link targets, code marks or heading marks', () => {
    expect(plainTextPreview('Here it is:\n```ts\nconst a = 1;\n```\n', 200)).toBe('const a = 1;');
    expect(plainTextPreview('Done.\n\n> Note: the **tests** pass\n```', 200)).toBe('Note: the tests pass');
    expect(plainTextPreview('## Summary', 200)).toBe('Summary');
    expect(plainTextPreview('See [the docs](https://example.com/a) and `npm test`', 200)).toBe(
      'See the docs and npm test',
    );
    expect(plainTextPreview('- [x] *shipped* it, ~~not~~ __really__', 200)).toBe('shipped it, not really');
    expect(plainTextPreview('snake_case_name stays, 2 * 3 * 4 stays', 200)).toBe(
      'snake_case_name stays, 2 * 3 * 4 stays',
    );
    expect(plainTextPreview('```\n```\n---\n', 200)).toBe('');
  });

  it('UX-8 a long line is cut at a word, with an ellipsis', () => {
    expect(cutLine('short', 10)).toBe('short');
    expect(cutLine('the quick brown fox jumps', 20)).toBe('the quick brown fox…');
    expect(cutLine('x'.repeat(30), 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it('UX-8 a session keeping its created title is listed under its first message; its own title wins', () => {
    expect(displayTitle('New codex session', 'codex', 'Fix the **login** bug\nIt fails on Safari')).toBe(
      'Fix the login bug',
    );
    expect(displayTitle('New claude session', 'claude', '```\n\n')).toBe('New claude session');
    expect(displayTitle('New codex session', 'codex', null)).toBe('New codex session');
    expect(displayTitle('New shell session', 'shell', 'npm test')).toBe('New shell session');
    expect(displayTitle('Login work', 'codex', 'Fix the login bug')).toBe('Login work');
    expect(displayTitle('New codex session', 'codex', `${'word '.repeat(40)}`).length).toBeLessThanOrEqual(80);
  });

  it("UX-8 the agent's own title comes before the first message, the person's before both", () => {
    expect(displayTitle('New codex session', 'codex', 'Fix the login bug', 'Safari **login** fix')).toBe(
      'Safari login fix',
    );
    expect(displayTitle('New claude session', 'claude', 'Fix the login bug', '   ')).toBe('Fix the login bug');
    expect(displayTitle('Login work', 'codex', 'Fix the login bug', 'Safari login fix')).toBe('Login work');
    expect(displayTitle('New shell session', 'shell', 'npm test', 'Tests')).toBe('New shell session');
    expect(displayTitle('New codex session', 'codex', null, 'word '.repeat(40)).length).toBeLessThanOrEqual(80);
  });

  it('UX-8 "done, unread" only for a finished turn this device has not seen since, and never over another badge', () => {
    const done = { state: 'idle' as const, runState: 'done' as const, finishedAt: 2000 };
    expect(hasUnreadChanges({ ...done, seenAt: null })).toBe(true);
    expect(hasUnreadChanges({ ...done, seenAt: 1999 })).toBe(true);
    expect(hasUnreadChanges({ ...done, seenAt: 2000 })).toBe(false);
    expect(hasUnreadChanges({ ...done, seenAt: 3000 })).toBe(false);
    expect(hasUnreadChanges({ ...done, finishedAt: null, seenAt: null })).toBe(false);
    expect(hasUnreadChanges({ ...done, runState: null, finishedAt: null, seenAt: null })).toBe(false);
    expect(hasUnreadChanges({ ...done, state: 'failed', runState: 'failed', seenAt: null })).toBe(false);
    expect(hasUnreadChanges({ ...done, state: 'running', seenAt: null })).toBe(false);
    expect(hasUnreadChanges({ ...done, runState: 'cancelled', seenAt: null })).toBe(false);
  });

  it('UX-8 the runtime keeps what each device has seen: one device opening a session clears its badge there only', () => {
    const dir = makeTempDir();
    const db = openDatabase(path.join(dir, 'hbcode.db'), MIGRATIONS_DIR);
    const sessions = new SessionStore(db);
    const [project] = sessions.ensureProjects([dir]);
    const activity = new SessionActivity(db);
    const views = new SessionViews(db);
    const codex = sessions.createSession(project!.id, 'codex', 'New codex session');
    const unread = (viewer: string) =>
      activity.withActivity(sessions.sessions(), viewer).find((s) => s.id === codex.id)!.unread ?? false;
    expect(unread('phone')).toBe(false);
    const run = sessions.insertRun(codex.id, 'op1', 'Tidy the README');
    sessions.setRunState(run.id, 'running');
    expect(unread('phone')).toBe(false);
    sessions.setRunState(run.id, 'done');
    const endedAt = db
      .prepare<[string], { ended_at: number }>('SELECT ended_at FROM runs WHERE id = ?')
      .get(run.id)!.ended_at;
    expect([unread('phone'), unread('laptop')]).toEqual([true, true]);
    expect(views.seen(codex.id, 'phone', endedAt)).toBe(true);
    expect([unread('phone'), unread('laptop')]).toEqual([false, true]);
    // An older time never makes it unread again (a late answer of a slow socket).
    views.seen(codex.id, 'phone', endedAt - 10_000);
    expect(unread('phone')).toBe(false);
    // The next turn finishing after that is unread again.
    const next = sessions.insertRun(codex.id, 'op2', 'And the changelog');
    db.prepare('UPDATE runs SET state = ?, ended_at = ? WHERE id = ?').run('done', endedAt + 5000, next.id);
    expect(unread('phone')).toBe(true);
    expect(views.seen('no-such-session', 'phone', Date.now())).toBe(false);
    // A session on a device's screen is seen as it changes, there only, until it is left.
    const shown = views.watch(codex.id, 'phone');
    const third = sessions.insertRun(codex.id, 'op3', 'And the tests');
    db.prepare('UPDATE runs SET state = ?, ended_at = ? WHERE id = ?').run('done', endedAt + 9000, third.id);
    views.changedUnderWatch(codex.id, endedAt + 9000);
    expect([unread('phone'), unread('laptop')]).toEqual([false, true]);
    shown();
    shown();
    const fourth = sessions.insertRun(codex.id, 'op4', 'And the docs');
    db.prepare('UPDATE runs SET state = ?, ended_at = ? WHERE id = ?').run('done', endedAt + 12_000, fourth.id);
    views.changedUnderWatch(codex.id, endedAt + 12_000);
    expect(unread('phone')).toBe(true);
    // The agent's own title is listed until the person renames the session.
    expect(sessions.setAgentTitle(codex.id, 'README tidy-up')).toBe(true);
    expect(sessions.setAgentTitle(codex.id, 'README tidy-up')).toBe(false);
    expect(activity.withActivity(sessions.sessions(), 'phone')[0]!.title).toBe('README tidy-up');
    sessions.renameSession(codex.id, 'Docs');
    expect(activity.withActivity(sessions.sessions(), 'phone')[0]!.title).toBe('Docs');
    // Deleting the session deletes what each device saw of it.
    sessions.deleteSessionRow(codex.id);
    expect(db.prepare('SELECT COUNT(*) AS n FROM session_views').get()).toEqual({ n: 0 });
  });

  it('UX-8 a pending approval comes before a running turn, a running turn before a failure', () => {
    expect(sessionState({ pendingApprovals: 1, runState: 'running', runningCommands: 1 })).toBe('waitingApproval');
    expect(sessionState({ pendingApprovals: 0, runState: 'running', runningCommands: 0 })).toBe('running');
    expect(sessionState({ pendingApprovals: 0, runState: 'queued', runningCommands: 0 })).toBe('running');
    expect(sessionState({ pendingApprovals: 0, runState: 'done', runningCommands: 1 })).toBe('running');
    expect(sessionState({ pendingApprovals: 0, runState: 'failed', runningCommands: 0 })).toBe('failed');
    expect(sessionState({ pendingApprovals: 0, runState: 'done', runningCommands: 0 })).toBe('idle');
    expect(sessionState({ pendingApprovals: 0, runState: null, runningCommands: 0 })).toBe('idle');
  });

  it('UX-8 the runtime lists each session with its state, its automatic title and a plain-text preview', () => {
    const dir = makeTempDir();
    const db = openDatabase(path.join(dir, 'hbcode.db'), MIGRATIONS_DIR);
    const sessions = new SessionStore(db);
    const [project] = sessions.ensureProjects([dir]);
    const activity = new SessionActivity(db);
    const codex = sessions.createSession(project!.id, 'codex', 'New codex session');
    const run = sessions.insertRun(codex.id, 'op1', 'Tidy the README\nplease');
    sessions.setRunState(run.id, 'running');
    const listed = () => activity.withActivity(sessions.sessions(), '').find((s) => s.id === codex.id)!;
    expect(listed()).toMatchObject({ title: 'Tidy the README', state: 'running' });
    db.prepare(
      "INSERT INTO approvals (id, session_id, run_id, kind, command, created_at) VALUES ('a1', ?, ?, 'command', 'rm -rf build', ?)",
    ).run(codex.id, run.id, Date.now());
    expect(listed().state).toBe('waitingApproval');
    db.prepare("UPDATE approvals SET decision = 'accept', answered_at = ? WHERE id = 'a1'").run(Date.now());
    expect(listed().state).toBe('running');
    sessions.settleRun(run.id, 'Done.\n\n> Note: **two** files changed\n```');
    sessions.setRunState(run.id, 'failed');
    expect(listed()).toMatchObject({ state: 'failed', lastActivity: 'Note: two files changed' });
    sessions.renameSession(codex.id, 'README work');
    expect(listed().title).toBe('README work');
    const fresh = sessions.createSession(project!.id, 'claude', 'New claude session');
    expect(activity.withActivity(sessions.sessions(), '').find((s) => s.id === fresh.id)).toMatchObject({
      title: 'New claude session',
      state: 'idle',
    });
  });
});
