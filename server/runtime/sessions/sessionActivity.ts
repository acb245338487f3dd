import type { MessageState, Session } from '../../../lib/protocol/rows';
import { displayTitle, hasUnreadChanges, plainTextPreview, sessionState } from '../../../lib/sessions/summary';
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
  run_state: MessageState | null;
  first_text: string | null;
  pending_approvals: number;
  running_commands: number;
  agent_title: string | null;
  seen_at: number | null;
}

/** Who is looking at the list (UX-8): a device id, or '' for the scripts' token. */
export type Viewer = string;
export const viewerOf = (deviceId: string | null | undefined): Viewer => deviceId ?? '';

/** The longest activity line the list is sent: one line of a phone's width, with room to spare. */
const MAX_LINE = 200;

/** The last line with words on it, as plain text and cut to one list line (UX-8). */
const lastLine = (text: string): string => plainTextPreview(text, MAX_LINE);

/**
 * When each session last did something and one line of it (UX-3), from its newest run: the
 * agent's closing text when it has one, else the run's latest command, else the message itself.
 * Also what it needs from the person, whether its last turn finished since the viewer last
 * opened it, and, while the person has not named it, the agent's title or its first message (UX-8).
 */
export class SessionActivity {
  private readonly newestRuns;

  constructor(db: Db) {
    this.newestRuns = db.prepare<[Viewer], RawActivity>(`
      SELECT s.id, r.text AS run_text, r.created_at AS run_at, r.ended_at AS run_ended_at,
             st.text AS settled_text, st.created_at AS settled_at, c.command, MAX(c.started_at, COALESCE(c.ended_at, 0)) AS command_at,
             r.state AS run_state,
             (SELECT text FROM runs WHERE session_id = s.id ORDER BY seq LIMIT 1) AS first_text,
             (SELECT COUNT(*) FROM approvals a WHERE a.session_id = s.id AND a.decision IS NULL AND a.expired IS NULL) AS pending_approvals,
             (SELECT COUNT(*) FROM commands rc WHERE rc.session_id = s.id AND rc.status = 'running') AS running_commands,
             s.agent_title, v.seen_at
      FROM sessions s
      LEFT JOIN session_views v ON v.session_id = s.id AND v.viewer = ?
      LEFT JOIN runs r ON r.id = (SELECT id FROM runs WHERE session_id = s.id ORDER BY seq DESC LIMIT 1)
      LEFT JOIN run_settlements st ON st.run_id = r.id
      LEFT JOIN commands c ON c.rowid = (SELECT rowid FROM commands WHERE run_id = r.id ORDER BY started_at DESC, rowid DESC LIMIT 1)`);
  }

  /** The sessions with their activity as `viewer` sees them, the most recently active first (then the newest). */
  withActivity(sessions: Session[], viewer: Viewer): Session[] {
    const byId = new Map(this.newestRuns.all(viewer).map((raw) => [raw.id, raw]));
    return sessions
      .map((session) => {
        const raw = byId.get(session.id);
        if (!raw) return { ...session, lastActivityAt: session.createdAt };
        const state = sessionState({
          pendingApprovals: raw.pending_approvals,
          runState: raw.run_state,
          runningCommands: raw.running_commands,
        });
        const title = displayTitle(session.title, session.agent, raw.first_text, raw.agent_title);
        if (raw.run_at === null) return { ...session, title, state, lastActivityAt: session.createdAt };
        const at = Math.max(
          session.createdAt,
          raw.run_at,
          raw.run_ended_at ?? 0,
          raw.settled_at ?? 0,
          raw.command_at ?? 0,
        );
        const line = raw.settled_text
          ? lastLine(raw.settled_text)
          : raw.command
            ? `$ ${lastLine(raw.command)}`
            : lastLine(raw.run_text ?? '');
        const unread = hasUnreadChanges({
          state,
          runState: raw.run_state,
          finishedAt: raw.run_ended_at === null ? null : at,
          seenAt: raw.seen_at,
        });
        return {
          ...session,
          title,
          state,
          lastActivityAt: at,
          ...(line ? { lastActivity: line } : {}),
          ...(unread ? { unread } : {}),
        };
      })
      .sort((a, b) => b.lastActivityAt - a.lastActivityAt || b.createdAt - a.createdAt);
  }
}
