import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionActivity } from '../../../server/runtime/sessions/sessionActivity';
import { SessionStore } from '../../../server/runtime/sessions/sessionStore';
import { MIGRATIONS_DIR } from '../../../server/runtime/paths';
import { openDatabase } from '../../../server/runtime/store/database';
import { cutLine, displayTitle, plainTextPreview, sessionState } from '../../../lib/sessions/summary';
import { makeTempDir } from '../../fixtures/tempDir';

describe('The sessions list: previews, titles and states', () => {
  it('UX-8 a preview is plain text: no fences, quote marks, emphasis, link targets, code marks or heading marks', () => {
    expect(plainTextPreview('Here it is:\n```ts\nconst a = 1;\n```\n', 200)).toBe('const a = 1;');
    expect(plainTextPreview('Done.\n\n> Note: the **tests** pass\n```', 200)).toBe('Note: the tests pass');
    expect(plainTextPreview('## Summary', 200)).toBe('Summary');
    expect(plainTextPreview('See [the docs](https://example.com/a) and `npm test`', 200)).toBe('See the docs and npm test');
    expect(plainTextPreview('- [x] *shipped* it, ~~not~~ __really__', 200)).toBe('shipped it, not really');
    expect(plainTextPreview('snake_case_name stays, 2 * 3 * 4 stays', 200)).toBe('snake_case_name stays, 2 * 3 * 4 stays');
    expect(plainTextPreview('```\n```\n---\n', 200)).toBe('');
  });

  it('UX-8 a long line is cut at a word, with an ellipsis', () => {
    expect(cutLine('short', 10)).toBe('short');
    expect(cutLine('the quick brown fox jumps', 20)).toBe('the quick brown fox…');
    expect(cutLine('x'.repeat(30), 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it('UX-8 a session keeping its created title is listed under its first message; its own title wins', () => {
    expect(displayTitle('New codex session', 'codex', 'Fix the **login** bug\nIt fails on Safari')).toBe('Fix the login bug');
    expect(displayTitle('New claude session', 'claude', '```\n\n')).toBe('New claude session');
    expect(displayTitle('New codex session', 'codex', null)).toBe('New codex session');
    expect(displayTitle('New shell session', 'shell', 'npm test')).toBe('New shell session');
    expect(displayTitle('Login work', 'codex', 'Fix the login bug')).toBe('Login work');
    expect(displayTitle('New codex session', 'codex', `${'word '.repeat(40)}`).length).toBeLessThanOrEqual(80);
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
    const listed = () => activity.withActivity(sessions.sessions()).find((s) => s.id === codex.id)!;
    expect(listed()).toMatchObject({ title: 'Tidy the README', state: 'running' });
    db.prepare("INSERT INTO approvals (id, session_id, run_id, kind, command, created_at) VALUES ('a1', ?, ?, 'command', 'rm -rf build', ?)").run(codex.id, run.id, Date.now());
    expect(listed().state).toBe('waitingApproval');
    db.prepare("UPDATE approvals SET decision = 'accept', answered_at = ? WHERE id = 'a1'").run(Date.now());
    expect(listed().state).toBe('running');
    sessions.settleRun(run.id, 'Done.\n\n> Note: **two** files changed\n```');
    sessions.setRunState(run.id, 'failed');
    expect(listed()).toMatchObject({ state: 'failed', lastActivity: 'Note: two files changed' });
    sessions.renameSession(codex.id, 'README work');
    expect(listed().title).toBe('README work');
    const fresh = sessions.createSession(project!.id, 'claude', 'New claude session');
    expect(activity.withActivity(sessions.sessions()).find((s) => s.id === fresh.id)).toMatchObject({ title: 'New claude session', state: 'idle' });
  });
});
