'use client';
import { useState, type FormEvent } from 'react';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { CodexLogin, CodexProfile } from '../../lib/protocol/accounts';
import type { UsageReading } from '../../lib/protocol/agents';
import { UsageWindows } from './UsageWindows';

const STATUS: Record<CodexProfile['status'], string> = {
  signed_out: 'Signed out',
  authenticated: 'Signed in',
  unavailable: 'Unavailable',
};

/**
 * One Codex profile (ACC-1): its status and account, then while signed out its ways to sign in
 * (by device code: a URL and a code that work from any device, a phone too; in a browser on the
 * desktop; with an API key), its plan-limit windows (ACC-7), and last, set apart, sign out,
 * rename and remove.
 */
export function CodexProfileCard({
  client,
  profile,
  usage,
  login,
  onLogin,
}: {
  client: RpcClient;
  profile: CodexProfile;
  usage: UsageReading[];
  login: CodexLogin | null;
  onLogin: (login: CodexLogin | null) => void;
}) {
  const [apiKey, setApiKey] = useState('');
  const [asking, setAsking] = useState<'apiKey' | 'rename' | null>(null);
  const [name, setName] = useState(profile.name);
  const [error, setError] = useState<string | null>(null);

  async function act(work: () => Promise<unknown>) {
    setError(null);
    try {
      await work();
    } catch (e) {
      setError((e as Error).message);
    }
  }
  const start = (method: CodexLogin['method'], key?: string) =>
    act(async () => {
      const { login: started } = await client.call('codex.login.start', {
        profileId: profile.id,
        method,
        ...(key ? { apiKey: key } : {}),
      });
      onLogin(method === 'apiKey' ? null : started);
      if (started.authUrl) window.open(started.authUrl, '_blank', 'noopener');
    });
  function submitKey(event: FormEvent) {
    event.preventDefault();
    if (!apiKey.trim()) return;
    void start('apiKey', apiKey.trim()).then(() => {
      setApiKey('');
      setAsking(null);
    });
  }
  function submitName(event: FormEvent) {
    event.preventDefault();
    void act(() => client.call('codex.profiles.rename', { profileId: profile.id, name })).then(() => setAsking(null));
  }
  const remove = () => {
    if (
      window.confirm(
        `Remove the Codex profile "${profile.name}"? Its sign-in and saved conversations on this computer are deleted.`,
      )
    )
      void act(() => client.call('codex.profiles.remove', { profileId: profile.id }));
  };

  return (
    <section className="card" aria-label={`Codex profile ${profile.name}`} data-profile-status={profile.status}>
      <div className="row" style={{ flexWrap: 'wrap' }}>
        <h3 className="grow ellipsis card-title">{profile.name}</h3>
        <span className="pill" data-testid="profile-status">
          {STATUS[profile.status]}
        </span>
      </div>
      {profile.status === 'authenticated' && (
        <p className="muted" style={{ margin: '4px 0' }}>
          {[
            profile.email,
            profile.planType && `plan ${profile.planType}`,
            profile.authMode === 'apiKey' ? 'API key' : profile.authMode,
          ]
            .filter(Boolean)
            .join(' · ')}
        </p>
      )}
      {profile.statusReason && <p className="error">{profile.statusReason}</p>}
      {login?.verificationUrl && login.userCode && (
        <div className="device-code" role="status" aria-label="Device code sign-in">
          <p style={{ margin: '4px 0' }}>
            Open{' '}
            <a href={login.verificationUrl} target="_blank" rel="noopener noreferrer">
              {login.verificationUrl}
            </a>{' '}
            on any device and enter this code:
          </p>
          <p className="mono" style={{ fontSize: 24, letterSpacing: 2, margin: '4px 0' }} data-testid="user-code">
            {login.userCode}
          </p>
        </div>
      )}
      {login?.authUrl && (
        <p role="status">
          Finish signing in{' '}
          <a href={login.authUrl} target="_blank" rel="noopener noreferrer">
            in a browser on the desktop
          </a>
          .
        </p>
      )}
      {profile.status !== 'authenticated' && (
        <div role="group" aria-labelledby={`sign-in-${profile.id}`}>
          <h4 className="card-subheading" id={`sign-in-${profile.id}`}>
            Sign in
          </h4>
          <div className="row wrap">
            <button className="primary" onClick={() => void start('deviceCode')}>
              Sign in with a code
            </button>
            <button onClick={() => void start('browser')}>Sign in in the browser</button>
            <button
              aria-expanded={asking === 'apiKey'}
              onClick={() => setAsking(asking === 'apiKey' ? null : 'apiKey')}
            >
              Use an API key
            </button>
          </div>
        </div>
      )}
      {asking === 'apiKey' && (
        <form className="row" onSubmit={submitKey} style={{ marginTop: 6 }}>
          <input
            className="grow"
            type="password"
            aria-label="OpenAI API key"
            placeholder="sk-…"
            value={apiKey}
            onChange={(e) => setApiKey(e.target.value)}
            autoComplete="off"
          />
          <button className="primary" type="submit" disabled={!apiKey.trim()}>
            Sign in
          </button>
        </form>
      )}
      {asking === 'rename' && (
        <form className="row" onSubmit={submitName} style={{ marginTop: 6 }}>
          <input className="grow" aria-label="Profile name" value={name} onChange={(e) => setName(e.target.value)} />
          <button className="primary" type="submit" disabled={!name.trim()}>
            Save
          </button>
        </form>
      )}
      {profile.status === 'authenticated' && <UsageWindows readings={usage} />}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="row wrap card-manage" role="group" aria-label={`Manage ${profile.name}`}>
        {profile.status === 'authenticated' && (
          <button onClick={() => void act(() => client.call('codex.logout', { profileId: profile.id }))}>
            Sign out
          </button>
        )}
        <button onClick={() => setAsking(asking === 'rename' ? null : 'rename')}>Rename</button>
        <button className="danger" onClick={remove}>
          Remove
        </button>
      </div>
    </section>
  );
}
