'use client';
import { Trash2 } from 'lucide-react';
import { useCallback, useEffect, useRef, useState } from 'react';
import { withGuardRailConfirmation } from '../lib/client/devices/guardRailConfirmation';
import { forgetSavedSession } from '../lib/client/readCache';
import type { RpcClient } from '../lib/client/rpcClient';
import { shortTime } from '../lib/client/shortTime';
import { readSessionsSnapshot, saveSessionsSnapshot } from '../lib/client/snapshotCache';
import {
  DEFAULT_CLAUDE_SETTINGS,
  DEFAULT_CODEX_SETTINGS,
  type AgentInfo,
  type ClaudeSettings,
  type CodexSettings,
} from '../lib/protocol/agents';
import { ClaudeSessionOptions } from './agents/ClaudeSessionOptions';
import { CodexSessionOptions } from './agents/CodexSessionOptions';
import { CodexRolloutPicker } from './agents/CodexRolloutPicker';
import type { AgentKind, Project, Session, SessionState } from '../lib/protocol/rows';
import { EmptyState } from './EmptyState';
import { confirmSessionDelete } from './sessions/confirmSessionDelete';
import { RecentConversations } from './sessions/RecentConversations';
import { NO_WORKTREE, WorktreeChoice, type WorktreeValue } from './sessions/WorktreeChoice';
import './sessions/newSession.css';

const AGENT_NAMES: [AgentKind, string][] = [
  ['shell', 'Shell'],
  ['codex', 'Codex'],
  ['claude', 'Claude'],
  ['terminal', 'Terminal'],
];

/** UX-3: the most recently active first; activity the runtime did not report counts from creation. */
const byLastActivity = (sessions: Session[]) =>
  [...sessions].sort(
    (a, b) => (b.lastActivityAt ?? b.createdAt) - (a.lastActivityAt ?? a.createdAt) || b.createdAt - a.createdAt,
  );

/**
 * Projects and their sessions; create one (choosing its agent) or delete one with confirmation.
 * Shows the list this device saved until the runtime answers, and while it cannot (PWA-3).
 */
/** `openSessionId`: the session on screen beside the list (the wide layout), marked as current. */
export function SessionList({
  client,
  onOpen,
  openSessionId,
}: {
  client: RpcClient | null;
  onOpen: (session: Session) => void;
  openSessionId: string | null;
}) {
  const [projects, setProjects] = useState<Project[]>([]);
  const [sessions, setSessions] = useState<Session[]>([]);
  const [agent, setAgent] = useState<AgentKind>('shell');
  /** Which agents the runtime can run (SES-2); unknown until it answers. */
  const [agents, setAgents] = useState<AgentInfo[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** The new session's agent options (ACC-5), a saved conversation to continue (ACC-11) and a worktree (SES-10). */
  const [codex, setCodex] = useState<CodexSettings>(DEFAULT_CODEX_SETTINGS);
  const [claude, setClaude] = useState<ClaudeSettings>(DEFAULT_CLAUDE_SETTINGS);
  const [conversation, setConversation] = useState<{ id: string; title: string } | null>(null);
  const [worktree, setWorktree] = useState<WorktreeValue>(NO_WORKTREE);
  /** The project whose options are open: one form at a time. */
  const [optionsFor, setOptionsFor] = useState<string | null>(null);
  const fresh = useRef(false);

  useEffect(() => {
    let live = true;
    readSessionsSnapshot().then(
      (saved) => {
        if (!live || !saved || fresh.current) return;
        setProjects(saved.value.projects);
        setSessions(saved.value.sessions);
      },
      (e: unknown) => console.warn('Could not read the saved session list', e),
    );
    return () => {
      live = false;
    };
  }, []);

  const refresh = useCallback(async () => {
    if (!client) return;
    const [p, s, a] = await Promise.all([
      client.call('projects.list'),
      client.call('sessions.list'),
      client.call('agents.list'),
    ]);
    fresh.current = true;
    setAgents(a.agents);
    setProjects(p.projects);
    setSessions(s.sessions);
    saveSessionsSnapshot(p.projects, s.sessions).catch((e: unknown) =>
      console.warn('Could not save the session list on this device', e),
    );
  }, [client]);

  useEffect(() => {
    if (!client) return;
    refresh().catch((e: Error) => setError(e.message));
    // NOTE: openSessionId is a dependency on purpose: a session left in the wide layout was just
    // marked seen (UX-8), and the list's answer from before says it was unread.
    return client.onNotification('sessions.changed', (params) => {
      if (params.deleted) void forgetSavedSession(params.sessionId).catch(() => {});
      refresh().catch(() => {});
    });
  }, [client, refresh, openSessionId]);

  /** `fromFile`: the Codex conversation file picked for it, titled by its first prompt (SRC-2). */
  async function create(projectId: string, fromFile?: { path: string; title: string | null }) {
    if (!client) return;
    setError(null);
    try {
      const forProject = optionsFor === projectId;
      const picked = forProject ? conversation : null;
      const ownWorktree =
        forProject && worktree.enabled
          ? { worktree: worktree.branch.trim() ? { branch: worktree.branch.trim() } : {} }
          : {};
      const options =
        agent === 'codex'
          ? {
              settings: { codex },
              ...(fromFile
                ? { codexRolloutPath: fromFile.path }
                : picked
                  ? { codexThreadId: picked.id, title: picked.title }
                  : {}),
              ...(fromFile ? {} : ownWorktree),
            }
          : agent === 'claude'
            ? {
                settings: { claude },
                ...(picked ? { claudeSessionId: picked.id, title: picked.title } : {}),
                ...ownWorktree,
              }
            : {};
      const created = await withGuardRailConfirmation((confirmed) =>
        client.call('sessions.create', {
          projectId,
          agent,
          ...options,
          ...(fromFile?.title ? { title: fromFile.title.slice(0, 200) } : {}),
          ...(confirmed ? { confirmLiftedGuardRails: true as const } : {}),
        }),
      );
      if (!created) return;
      const { session } = created;
      setConversation(null);
      setWorktree(NO_WORKTREE);
      // The list unmounts now: save it with the new session, so the session can be found offline.
      if (fresh.current)
        saveSessionsSnapshot(projects, [session, ...sessions]).catch((e: unknown) =>
          console.warn('Could not save the session list on this device', e),
        );
      onOpen(session);
    } catch (e) {
      setError((e as Error).message);
    }
  }

  async function remove(session: Session) {
    if (!client) return;
    try {
      if (!(await confirmSessionDelete(client, session))) return;
      void forgetSavedSession(session.id).catch(() => {});
      await refresh();
    } catch (e) {
      setError((e as Error).message);
    }
  }

  const loaded = fresh.current || projects.length > 0;
  return (
    // Where the list shown came from: this device's copy until the runtime answers (UX-3, UX-8).
    <div className="scroll" data-sessions-from={fresh.current ? 'runtime' : 'device'}>
      {loaded && sessions.length === 0 && (
        <EmptyState
          name="sessions"
          title="No sessions yet"
          hint={
            projects.length > 1
              ? 'Pick a project below, choose its agent and press New session.'
              : 'Choose an agent below and press New session: Shell runs commands, Codex and Claude work on the project for you.'
          }
        />
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {projects.map((project) => (
        <section key={project.id} className="card" aria-label={`Project ${project.name}`}>
          <div className="row">
            <h2 className="grow ellipsis" style={{ margin: 0, fontSize: 17 }} title={project.directory}>
              {project.name}
            </h2>
            <label className="muted" htmlFor={`agent-${project.id}`}>
              Agent
            </label>
            <select
              id={`agent-${project.id}`}
              value={agent}
              onChange={(e) => {
                setAgent(e.target.value as AgentKind);
                setConversation(null);
              }}
            >
              {AGENT_NAMES.map(([kind, name]) => {
                const info = agents?.find((a) => a.agent === kind);
                return (
                  <option
                    key={kind}
                    value={kind}
                    disabled={info ? !info.available : kind !== 'shell' && kind !== 'terminal'}
                    title={info?.reason}
                  >
                    {info && !info.available ? `${name} (not installed)` : name}
                  </option>
                );
              })}
            </select>
            {(agent === 'codex' || agent === 'claude') && (
              <button
                aria-expanded={optionsFor === project.id}
                onClick={() => setOptionsFor(optionsFor === project.id ? null : project.id)}
              >
                Options
              </button>
            )}
            {/* The list may be this device's copy before the connection opens: a tap then would do nothing. */}
            <button
              className="primary"
              onClick={() => create(project.id)}
              disabled={!client}
              title={client ? undefined : 'Waiting for the connection to your computer'}
            >
              New session
            </button>
          </div>
          {client && optionsFor === project.id && agent === 'codex' && (
            <CodexSessionOptions
              client={client}
              value={codex}
              onChange={(next) => {
                if (next.profileId !== codex.profileId) setConversation(null);
                setCodex(next);
              }}
            />
          )}
          {client && agent === 'codex' && (
            <CodexRolloutPicker
              client={client}
              onPick={(rollout) => create(project.id, { path: rollout.path, title: rollout.firstPrompt })}
            />
          )}
          {client && optionsFor === project.id && agent === 'claude' && (
            <ClaudeSessionOptions client={client} value={claude} onChange={setClaude} />
          )}
          {client && optionsFor === project.id && (agent === 'codex' || agent === 'claude') && (
            <div className="new-session-choices">
              <WorktreeChoice value={worktree} onChange={setWorktree} />
              <RecentConversations
                client={client}
                agent={agent}
                projectDirectory={project.directory}
                accountKey={agent === 'codex' ? codex.profileId : null}
                value={conversation?.id ?? null}
                onChange={setConversation}
              />
              {/* Below the choices too, so a phone need not scroll back up to start the session. */}
              <button className="primary" onClick={() => create(project.id)} disabled={!client}>
                Start this session
              </button>
            </div>
          )}
          <ul style={{ listStyle: 'none', padding: 0, margin: '10px 0 0' }}>
            {byLastActivity(sessions.filter((s) => s.projectId === project.id)).map((session) => (
              <li key={session.id} className="row" style={{ marginTop: 6 }} data-session-id={session.id}>
                <button
                  className="list-button grow session-entry"
                  aria-current={session.id === openSessionId ? 'page' : undefined}
                  onClick={() => onOpen(session)}
                >
                  {/* The title has a line of its own, so a phone shows it whole; the time goes with the activity. */}
                  <span className="session-entry-head">
                    <span className="pill">{session.agent}</span>
                    {/* SES-10: the branch the session works on, in its own worktree. */}
                    {session.worktree && (
                      <span className="pill branch" data-session-branch title={session.worktree.path}>
                        {session.worktree.branch}
                      </span>
                    )}
                    {/* A saved list never pretends to be live (UX-3): badges only from the runtime's answer. */}
                    {/* The open session is being seen: it is never "unread" beside itself (UX-8). */}
                    <SessionBadge state={fresh.current ? badgeOf(session, openSessionId) : undefined} />
                  </span>
                  {/* UX-8: the whole title, on two lines when it needs them; nothing beside it squeezes it. */}
                  <span className="session-entry-title" data-session-title>
                    {session.title}
                  </span>
                  <span className="session-entry-head">
                    <span className="muted grow ellipsis" data-last-activity>
                      {session.lastActivity ?? 'Nothing run yet'}
                    </span>
                    <SessionTime at={session.lastActivityAt ?? session.createdAt} />
                  </span>
                </button>
                <button
                  className="danger icon-button"
                  aria-label={`Delete ${session.title}`}
                  title="Delete"
                  onClick={() => remove(session)}
                >
                  <Trash2 size={18} aria-hidden />
                </button>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}

type Badge = Exclude<SessionState, 'idle'> | 'unread';

/** UX-8: what the session needs from the person, in words (an idle session shows none). */
const BADGES: Record<Badge, string> = {
  waitingApproval: 'Waiting for approval',
  running: 'Running',
  failed: 'Failed',
  unread: 'Done, unread',
};

/** The badge of a listed session: its state, else "done, unread" when its last turn is new to this device. */
function badgeOf(session: Session, openSessionId: string | null): Badge | undefined {
  if (session.state && session.state !== 'idle') return session.state;
  return session.unread && session.id !== openSessionId ? 'unread' : undefined;
}

function SessionBadge({ state }: { state: Badge | undefined }) {
  if (!state) return null;
  return (
    <span className={`session-badge session-badge-${state}`} data-session-state={state}>
      {BADGES[state]}
    </span>
  );
}

function SessionTime({ at }: { at: number }) {
  return (
    <time className="muted session-time" dateTime={new Date(at).toISOString()} title={new Date(at).toLocaleString()}>
      {shortTime(at, Date.now())}
    </time>
  );
}
