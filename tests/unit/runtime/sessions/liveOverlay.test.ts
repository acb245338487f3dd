import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LiveOverlayStore } from '../../../../server/runtime/sessions/liveOverlay';
import { SessionStore } from '../../../../server/runtime/sessions/sessionStore';
import { MIGRATIONS_DIR } from '../../../../server/runtime/paths';
import { openDatabase } from '../../../../server/runtime/store/database';
import { agentText } from '../../../fixtures/scriptedAgentSessions';
import { makeTempDir } from '../../../fixtures/tempDir';

function openStores() {
  const dir = makeTempDir();
  const db = openDatabase(path.join(dir, 'hbcode.db'), MIGRATIONS_DIR);
  const sessions = new SessionStore(db);
  const [project] = sessions.ensureProjects([dir]);
  const session = sessions.createSession(project!.id, 'codex', 'test');
  return { db, sessions, session, overlay: new LiveOverlayStore(db) };
}

describe('LiveOverlayStore', () => {
  it('TL-3 one revision counter for every target: a new target never reuses a revision, even after a target is emptied', () => {
    const { db, overlay, session } = openStores();
    const first = overlay.upsert(session.id, 'r1', agentText('a', 'one'));
    const second = overlay.upsert(session.id, 'r1', { ...agentText('k', 'inside'), parentItemId: 'sub' });
    const emptied = overlay.removeRun(session.id, session.id, 'r1');
    const third = overlay.upsert(session.id, 'r2', agentText('b', 'two'));
    expect([first, second, emptied.revision, third]).toEqual([1, 2, 3, 4]);
    expect(emptied.removed.map((entry) => entry.item.itemId)).toEqual(['a']);
    expect(overlay.revision()).toBe(4);
    expect(overlay.targetsOfRun(session.id, 'r1')).toEqual(['sub']);
    // The cache is not the only copy: a second store over the same database reads the same.
    const reread = new LiveOverlayStore(db);
    expect(reread.entries(session.id, session.id).map((entry) => [entry.item.itemId, entry.revision])).toEqual([
      ['b', 4],
    ]);
    expect(reread.runsWithEntries().sort((x, y) => x.runId.localeCompare(y.runId))).toEqual([
      { sessionId: session.id, runId: 'r1' },
      { sessionId: session.id, runId: 'r2' },
    ]);
  });

  it('TL-3 the same item id again replaces its state in place', () => {
    const { overlay, session } = openStores();
    overlay.upsert(session.id, 'r1', agentText('a', 'par', 1, true));
    overlay.upsert(session.id, 'r1', agentText('b', 'other'));
    overlay.upsert(session.id, 'r1', agentText('a', 'partial', 1, true));
    expect(
      overlay
        .entries(session.id, session.id)
        .map((entry) => [entry.item.itemId, 'text' in entry.item && entry.item.text]),
    ).toEqual([
      ['a', 'partial'],
      ['b', 'other'],
    ]);
  });

  it('TL-3 the revision stops at 2^53 - 1 with a storage error instead of wrapping', () => {
    const { db, overlay, session } = openStores();
    db.prepare('UPDATE chat_live_timeline_overlay_revisions SET revision = ?').run(Number.MAX_SAFE_INTEGER - 1);
    expect(overlay.upsert(session.id, 'r1', agentText('a', 'last'))).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => overlay.upsert(session.id, 'r1', agentText('a', 'one too many'))).toThrow(
      expect.objectContaining({ code: 'storage', data: expect.objectContaining({ reason: 'revision_exhausted' }) }),
    );
    expect(overlay.revision()).toBe(Number.MAX_SAFE_INTEGER);
    expect(overlay.entries(session.id, session.id).map((entry) => 'text' in entry.item && entry.item.text)).toEqual([
      'last',
    ]);
  });

  it('TL-3 pending cleanups are kept until deleted, and go with their session', () => {
    const { overlay, sessions, session } = openStores();
    overlay.addCleanup(session.id, 'r1');
    overlay.addCleanup(session.id, 'r1');
    overlay.upsert(session.id, 'r1', agentText('a', 'x'));
    expect(overlay.cleanups()).toEqual([{ sessionId: session.id, runId: 'r1' }]);
    sessions.deleteSessionRow(session.id);
    overlay.forgetSession(session.id);
    expect(overlay.cleanups()).toEqual([]);
    expect(overlay.runsWithEntries()).toEqual([]);
  });
});
