'use client';
import { useCallback, useEffect, useState } from 'react';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { ClaudeAccount, ClaudeAccountStatus } from '../../lib/protocol/claude';
import { ClaudeApiKeyForm } from './ClaudeApiKeyForm';
import { ClaudeUsageWindows } from './ClaudeUsageWindows';

/** The account's sign-in as last known; while a check runs, that it is being checked. */
function statusText(status: ClaudeAccountStatus | undefined, checking: boolean): string {
  if (!status) return checking ? 'Checking sign-in…' : 'Not checked yet';
  const known = describeStatus(status);
  return checking ? `${known} · checking…` : known;
}

function describeStatus(status: ClaudeAccountStatus): string {
  if (status.state === 'unavailable') return `Cannot tell: ${status.reason ?? 'Claude Code did not answer.'}`;
  if (status.state === 'signedOut') return 'Not signed in';
  const who = [status.email, status.organization].filter(Boolean).join(' · ');
  const how = status.subscriptionType ?? status.source;
  return `Signed in${who ? ` as ${who}` : ''}${how ? ` (${how})` : ''}`;
}

/**
 * Claude accounts (ACC-2): the main Claude folder and the added ones, each with its sign-in
 * status from Claude Code, its plan-limit windows (ACC-7), the exact command that signs it in on
 * the desktop, and an API key entry.
 */
export function ClaudeAccountsSection({ client }: { client: RpcClient }) {
  const [accounts, setAccounts] = useState<ClaudeAccount[]>([]);
  const [statuses, setStatuses] = useState<Record<string, ClaudeAccountStatus>>({});
  /** Accounts whose check is running: it starts Claude Code, which takes seconds; the last answer stays on screen meanwhile. */
  const [checking, setChecking] = useState<ReadonlySet<string>>(new Set());
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const refreshStatus = useCallback(
    (accountId: string) => {
      setChecking((current) => new Set(current).add(accountId));
      client
        .call('claude.accounts.status', { accountId })
        .then(({ status }) => setStatuses((current) => ({ ...current, [accountId]: status })))
        .catch((e: Error) =>
          setStatuses((current) => ({
            ...current,
            [accountId]: {
              state: 'unavailable',
              email: null,
              organization: null,
              subscriptionType: null,
              source: null,
              reason: e.message,
            },
          })),
        )
        .finally(() =>
          setChecking((current) => {
            const next = new Set(current);
            next.delete(accountId);
            return next;
          }),
        );
    },
    [client],
  );

  const reload = useCallback(async () => {
    try {
      const result = await client.call('claude.accounts.list');
      setAccounts(result.accounts);
      return result.accounts;
    } catch (e) {
      setError((e as Error).message);
      return [];
    }
  }, [client]);

  useEffect(() => {
    let live = true;
    void reload().then((list) => {
      if (live) for (const account of list) refreshStatus(account.id);
    });
    return () => {
      live = false;
    };
  }, [reload, refreshStatus]);

  async function act(action: () => Promise<unknown>, then?: () => void) {
    setBusy(true);
    setError(null);
    try {
      await action();
      await reload();
      then?.();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }

  async function add() {
    await act(async () => {
      const { account } = await client.call('claude.accounts.add', {});
      refreshStatus(account.id);
    });
  }

  return (
    <section aria-labelledby="claude-accounts-title" data-section="claude-accounts">
      <h2 id="claude-accounts-title" className="section-heading">
        Claude
      </h2>
      <p className="muted section-note">
        New Claude sessions run with the active account. Every account reads and saves the same conversations.
      </p>
      {accounts.map((account) => (
        <div key={account.id} className="card" data-account={account.id} role="group" aria-label={account.label}>
          <div className="row" style={{ flexWrap: 'wrap' }}>
            <h3 className="grow ellipsis card-title">{account.label}</h3>
            {account.active ? <span className="pill">Active</span> : null}
          </div>
          <div className="muted" data-field="status" aria-busy={checking.has(account.id)}>
            {statusText(statuses[account.id] ?? account.lastStatus?.status, checking.has(account.id))}
          </div>
          <ClaudeUsageWindows usage={account.usage} />
          <div role="group" aria-labelledby={`claude-sign-in-${account.id}`}>
            <h4 className="card-subheading" id={`claude-sign-in-${account.id}`}>
              Sign in
            </h4>
            <details>
              <summary>On the desktop, in a terminal</summary>
              <p className="muted">Run this once in a terminal on the desktop, then check again:</p>
              <code
                className="mono"
                data-field="sign-in-command"
                style={{ display: 'block', whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}
              >
                {account.signInCommand}
              </code>
            </details>
            <ClaudeApiKeyForm
              hasApiKey={account.hasApiKey}
              busy={busy}
              onSave={(apiKey) =>
                act(
                  () => client.call('claude.accounts.setApiKey', { accountId: account.id, apiKey }),
                  () => refreshStatus(account.id),
                )
              }
            />
            <div className="row wrap" style={{ marginTop: 8 }}>
              <button onClick={() => refreshStatus(account.id)} disabled={busy}>
                Check again
              </button>
            </div>
          </div>
          {(!account.active || account.id !== 'default') && (
            <div className="row wrap card-manage" role="group" aria-label={`Manage ${account.label}`}>
              {!account.active && (
                <button
                  onClick={() => act(() => client.call('claude.accounts.activate', { accountId: account.id }))}
                  disabled={busy}
                >
                  Make active
                </button>
              )}
              {account.id !== 'default' && (
                <button
                  className="danger"
                  onClick={() => act(() => client.call('claude.accounts.remove', { accountId: account.id }))}
                  disabled={busy}
                >
                  Remove
                </button>
              )}
            </div>
          )}
        </div>
      ))}
      <button onClick={add} disabled={busy}>
        Add a Claude account
      </button>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
