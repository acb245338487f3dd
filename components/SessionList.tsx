'use client';
import { useCallback, useEffect, useState } from 'react';
import type { RpcClient } from '../lib/client/rpcClient';
import type { AgentKind, Project, Session } from '../lib/protocol/rows';

/** Projects and their sessions; create one (choosing its agent) or delete one with confirmation. */
export function SessionList({ client, onOpen }: { client: RpcClient | null; onOpen: (session: Session) => void }) {
  const [projects, setProjects] = useState<Project[]>([]);
  const [sessions, setSessions] = useState<Session[]>([]);
  const [agent, setAgent] = useState<AgentKind>('shell');
  const [error, setError] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    if (!client) return;
    const [p, s] = await Promise.all([client.call('projects.list'), client.call('sessions.list')]);
    setProjects(p.projects);
    setSessions(s.sessions);
  }, [client]);

  useEffect(() => {
    if (!client) return;
    refresh().catch((e: Error) => setError(e.message));
    return client.onNotification((method) => {
      if (method === 'sessions.changed') refresh().catch(() => {});
    });
  }, [client, refresh]);

  async function create(projectId: string) {
    if (!client) return;
    setError(null);
    try {
      const { session } = await client.call('sessions.create', { projectId, agent });
      onOpen(session);
    } catch (e) {
      setError((e as Error).message);
    }
  }

  async function remove(session: Session) {
    if (!client || !window.confirm(`Delete "${session.title}"? Its messages and command output are removed from this computer.`)) return;
    try {
      await client.call('sessions.delete', { sessionId: session.id });
      await refresh();
    } catch (e) {
      setError((e as Error).message);
    }
  }

  return (
    <div className="scroll">
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
            <select id={`agent-${project.id}`} value={agent} onChange={(e) => setAgent(e.target.value as AgentKind)}>
              <option value="shell">Shell</option>
              <option value="codex">Codex</option>
              <option value="claude">Claude</option>
            </select>
            <button className="primary" onClick={() => create(project.id)}>
              New session
            </button>
          </div>
          <ul style={{ listStyle: 'none', padding: 0, margin: '10px 0 0' }}>
            {sessions
              .filter((s) => s.projectId === project.id)
              .map((session) => (
                <li key={session.id} className="row" style={{ marginTop: 6 }}>
                  <button className="list-button grow" onClick={() => onOpen(session)}>
                    <span className="pill">{session.agent}</span>
                    <span className="grow ellipsis">{session.title}</span>
                    <span className="muted">{new Date(session.createdAt).toLocaleString()}</span>
                  </button>
                  <button className="danger" aria-label={`Delete ${session.title}`} onClick={() => remove(session)}>
                    Delete
                  </button>
                </li>
              ))}
          </ul>
        </section>
      ))}
    </div>
  );
}
