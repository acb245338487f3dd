'use client';
// First: configures zod before any schema is built (see the file).
import '../../lib/client/zodWithoutEval';
import { useEffect, useState } from 'react';
import { loadPairing, type DevicePairing } from '../../lib/client/appDb';
import { DEFAULT_CLAUDE_SETTINGS, type ClaudeSettings } from '../../lib/protocol/agents';
import type { Project } from '../../lib/protocol/rows';
import { useConnection } from '../useConnection';
import { ClaudeAccountsSection } from './ClaudeAccountsSection';
import { ClaudeSessionOptions } from './ClaudeSessionOptions';

/**
 * A page of its own with the Claude account and session controls (ACC-2, ACC-5, ACC-8), for a
 * paired device, until the Accounts screen and the new-session form show them.
 */
export function ClaudeCheckPage() {
  const [pairing, setPairing] = useState<DevicePairing | null | undefined>(undefined);
  const [projects, setProjects] = useState<Project[]>([]);
  const [settings, setSettings] = useState<ClaudeSettings>(DEFAULT_CLAUDE_SETTINGS);
  const [continued, setContinued] = useState<string | null>(null);
  const state = useConnection(pairing?.token ?? null);
  const client = state.kind === 'open' ? state.client : null;

  useEffect(() => {
    loadPairing().then(
      (found) => setPairing(found ?? null),
      () => setPairing(null),
    );
  }, []);
  useEffect(() => {
    client
      ?.call('projects.list')
      .then((result) => setProjects(result.projects))
      .catch(() => setProjects([]));
  }, [client]);

  if (pairing === null) return <p className="card">Pair this device first.</p>;
  if (!client) return <p className="muted">Connecting…</p>;
  return (
    <main style={{ maxWidth: 720, margin: '0 auto', padding: 14 }}>
      <ClaudeAccountsSection client={client} />
      {projects[0] && (
        <section aria-labelledby="claude-options-title">
          <h2 id="claude-options-title">New Claude session in {projects[0].name}</h2>
          <ClaudeSessionOptions value={settings} onChange={setSettings} client={client} projectId={projects[0].id} onContinue={setContinued} />
          <p className="muted" data-field="chosen">
            {settings.permissionMode} · {settings.model ?? 'account default'}
            {continued ? ` · continues ${continued}` : ''}
          </p>
        </section>
      )}
    </main>
  );
}
