import type { Session } from '../../../lib/protocol/rows';
import type { Db } from '../store/database';

interface RawActivity {
  id: string;
  run_text: string | null;
  run_at: number | null;
  run_ended_at: number | null;
  settled_text: string | null;
  settled_at: number | null;
  command: string | null;
  command_at: number | null;
}

/** The longest activity line the list is sent: one line of a phone's width, with room to spare. */
const MAX_LINE = 200;

/** The last line with something on it, cut to one list line. */
function lastLine(text: string): string {
  const line = text.split('\n').map((l) => l.trim()).filter((l) => l !== '').at(-1) ?? '';
  return line.length > MAX_LINE ? `${line.slice(0, MAX_LINE - 1)}…` : line;
}

/**
 * When each session last did something and one line of it (UX-3), from its newest run: the
 * agent's closing text when it has one, else the run's latest command, else the message itself.
 */
export class SessionActivity {
  private readonly newestRuns;

  constructor(db: Db) {
    this.newestRuns = db.prepare<[], RawActivity>(`
      SELECT s.id, r.text AS run_text, r.created_at AS run_at, r.ended_at AS run_ended_at,
             st.text AS settled_text, st.created_at AS settled_at, c.command, MAX(c.started_at, COALESCE(c.ended_at, 0)) AS command_at
      FROM sessions s
      LEFT JOIN runs r ON r.id = (SELECT id FROM runs WHERE session_id = s.id ORDER BY seq DESC LIMIT 1)
      LEFT JOIN run_settlements st ON st.run_id = r.id
      LEFT JOIN commands c ON c.rowid = (SELECT rowid FROM commands WHERE run_id = r.id ORDER BY started_at DESC, rowid DESC LIMIT 1)`);
  }

  /** The sessions with their activity, the most recently active first (then the newest). */
  withActivity(sessions: Session[]): Session[] {
    const byId = new Map(this.newestRuns.all().map((raw) => [raw.id, raw]));
    return sessions
      .map((session) => {
        const raw = byId.get(session.id);
        if (!raw || raw.run_at === null) return { ...session, lastActivityAt: session.createdAt };
        const at = Math.max(session.createdAt, raw.run_at, raw.run_ended_at ?? 0, raw.settled_at ?? 0, raw.command_at ?? 0);
        const line = raw.settled_text ? lastLine(raw.settled_text) : raw.command ? `$ ${lastLine(raw.command)}` : lastLine(raw.run_text ?? '');
        return { ...session, lastActivityAt: at, ...(line ? { lastActivity: line } : {}) };
      })
      .sort((a, b) => b.lastActivityAt - a.lastActivityAt || b.createdAt - a.createdAt);
  }
}
