'use client';
import { useEffect, useState } from 'react';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { ClaudeSettings } from '../../lib/protocol/agents';

type Model = { id: string; label: string; description: string | null };

const PERMISSION_MODES: { value: ClaudeSettings['permissionMode']; label: string; hint: string }[] = [
  { value: 'default', label: 'Ask before changes', hint: 'Claude asks before it edits files or runs commands.' },
  { value: 'acceptEdits', label: 'Accept edits', hint: 'File edits go ahead; commands still ask.' },
  { value: 'plan', label: 'Plan only', hint: 'Claude reads and plans; it changes nothing on disk.' },
  { value: 'bypassPermissions', label: 'Full access', hint: 'Everything runs without asking.' },
];

/**
 * A Claude session's options (ACC-5): permission mode and model from Claude Code's own list. The
 * conversation to continue is picked beside them (ACC-11).
 */
export function ClaudeSessionOptions({
  value,
  onChange,
  client,
}: {
  value: ClaudeSettings;
  onChange(v: ClaudeSettings): void;
  client: RpcClient;
}) {
  const [models, setModels] = useState<Model[] | null>(null);
  const [modelError, setModelError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    client
      .call('claude.models.list', {})
      .then((result) => live && setModels(result.models))
      .catch((e: Error) => live && setModelError(e.message));
    return () => {
      live = false;
    };
  }, [client]);

  const hint = PERMISSION_MODES.find((m) => m.value === value.permissionMode)?.hint;
  return (
    <fieldset className="card" data-section="claude-session-options" style={{ display: 'grid', gap: 10 }}>
      <legend>Claude</legend>
      <label style={{ display: 'grid', gap: 4 }}>
        <span>Permission mode</span>
        <select
          value={value.permissionMode}
          onChange={(event) =>
            onChange({ ...value, permissionMode: event.target.value as ClaudeSettings['permissionMode'] })
          }
        >
          {PERMISSION_MODES.map((mode) => (
            <option key={mode.value} value={mode.value}>
              {mode.label}
            </option>
          ))}
        </select>
        {hint && <span className="muted">{hint}</span>}
      </label>
      <label style={{ display: 'grid', gap: 4 }}>
        <span>Model</span>
        <select
          value={value.model ?? ''}
          onChange={(event) => onChange({ ...value, model: event.target.value || null })}
          disabled={!models}
        >
          <option value="">Account default</option>
          {(models ?? [])
            .filter((m) => m.id !== 'default')
            .map((m) => (
              <option key={m.id} value={m.id}>
                {m.label}
              </option>
            ))}
          {value.model && models && !models.some((m) => m.id === value.model) && (
            <option value={value.model}>{value.model}</option>
          )}
        </select>
        {!models && !modelError && <span className="muted">Asking Claude Code for its models…</span>}
        {modelError && <span className="error">{modelError}</span>}
      </label>
    </fieldset>
  );
}
