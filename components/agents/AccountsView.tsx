'use client';
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { CodexLogin, CodexProfile } from '../../lib/protocol/accounts';
import type { UsageReading } from '../../lib/protocol/agents';
import { ClaudeAccountsSection } from './ClaudeAccountsSection';
import { CodexProfileCard } from './CodexProfileCard';

/**
 * The Accounts screen (`#/accounts`): Codex profiles with their sign-in (ACC-1) and each
 * account's plan-limit windows (ACC-7), then the Claude accounts. Every device sees the same
 * state: profile and usage changes arrive as notifications.
 */
export function AccountsView({ client }: { client: RpcClient | null }) {
  const [profiles, setProfiles] = useState<CodexProfile[]>([]);
  const [usage, setUsage] = useState<UsageReading[]>([]);
  const [logins, setLogins] = useState<Record<string, CodexLogin | null>>({});
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    if (!client) return;
    const [p, u] = await Promise.all([client.call('codex.profiles.list'), client.call('usage.list')]);
    setProfiles(p.profiles);
    setUsage(u.readings);
  }, [client]);

  useEffect(() => {
    if (!client) return;
    refresh()
      .then(async () => {
        // Ask each profile's Codex once, so the status is current, not as last seen.
        const { profiles: listed } = await client.call('codex.profiles.list');
        await Promise.all(
          listed.map((p) => client.call('codex.profiles.refresh', { profileId: p.id }).catch(() => undefined)),
        );
        await refresh();
      })
      .catch((e: Error) => setError(e.message));
    const stopProfiles = client.onNotification('codex.profile.changed', (params) => {
      if (params.login) setLogins((current) => ({ ...current, [params.profile.id]: null }));
      if (params.login && !params.login.success) setError(`Sign-in failed: ${params.login.error ?? 'unknown reason'}`);
      setProfiles((current) =>
        params.removed
          ? current.filter((p) => p.id !== params.profile.id)
          : current.some((p) => p.id === params.profile.id)
            ? current.map((p) => (p.id === params.profile.id ? params.profile : p))
            : [...current, params.profile],
      );
    });
    const stopUsage = client.onNotification('usage.changed', (params) =>
      setUsage((current) => [
        ...current.filter(
          (r) =>
            !(
              r.agent === params.reading.agent &&
              r.accountKey === params.reading.accountKey &&
              r.window === params.reading.window
            ),
        ),
        params.reading,
      ]),
    );
    return () => {
      stopProfiles();
      stopUsage();
    };
  }, [client, refresh]);

  async function add(event: FormEvent) {
    event.preventDefault();
    if (!client || !name.trim()) return;
    try {
      await client.call('codex.profiles.add', { name: name.trim() });
      setName('');
      await refresh();
    } catch (e) {
      setError((e as Error).message);
    }
  }

  return (
    <div className="scroll" aria-label="Accounts">
      <h2 className="section-heading">Codex</h2>
      <p className="muted section-note">
        Each profile is a Codex sign-in of its own; a Codex session runs with the profile chosen for it.
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {client &&
        profiles.map((profile) => (
          <CodexProfileCard
            key={profile.id}
            client={client}
            profile={profile}
            usage={usage.filter((r) => r.agent === 'codex' && r.accountKey === profile.id)}
            login={logins[profile.id] ?? null}
            onLogin={(login) => setLogins((current) => ({ ...current, [profile.id]: login }))}
          />
        ))}
      <form className="row card" onSubmit={add} aria-label="Add a Codex profile">
        <input
          className="grow"
          aria-label="New profile name"
          placeholder="Profile name, e.g. Work"
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
        <button type="submit" disabled={!client || !name.trim()}>
          Add profile
        </button>
      </form>
      {client && <ClaudeAccountsSection client={client} />}
    </div>
  );
}
