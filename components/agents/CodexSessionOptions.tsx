'use client';
import { useEffect, useState } from 'react';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { CodexProfile } from '../../lib/protocol/accounts';
import { CodexSettingsSchema, type AgentModelInfo, type CodexSettings } from '../../lib/protocol/agents';

const SANDBOXES: [CodexSettings['sandbox'], string][] = [
  ['read-only', 'Read only'],
  ['workspace-write', 'Write in the project'],
  ['danger-full-access', 'Full access'],
];
const POLICIES: [CodexSettings['approvalPolicy'], string][] = [
  ['on-request', 'Ask when needed'],
  ['untrusted', 'Ask for most commands'],
  ['never', 'Never ask'],
];
const EFFORTS = CodexSettingsSchema.shape.effort.unwrap().options;

/** One labelled select over fixed choices. */
function Choice<T extends string>({
  label,
  value,
  choices,
  onChange,
}: {
  label: string;
  value: T;
  choices: [T, string][];
  onChange: (value: T) => void;
}) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value as T)}>
        {choices.map(([id, text]) => (
          <option key={id} value={id}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

export interface CodexSessionOptionsProps {
  client: RpcClient;
  value: CodexSettings;
  onChange(value: CodexSettings): void;
}

/**
 * A Codex session's profile, sandbox, approval policy, model and effort (ACC-5), chosen at
 * creation and changed between turns. Models and their efforts come from the profile's
 * `model/list`; workspace-write is the default, full access only when picked.
 */
export function CodexSessionOptions({ client, value, onChange }: CodexSessionOptionsProps) {
  const [profiles, setProfiles] = useState<CodexProfile[]>([]);
  const [models, setModels] = useState<AgentModelInfo[]>([]);
  const profileId = value.profileId ?? profiles[0]?.id ?? null;

  useEffect(() => {
    let live = true;
    client.call('codex.profiles.list').then(
      (r) => live && setProfiles(r.profiles),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [client]);
  useEffect(() => {
    let live = true;
    client.call('agents.models', { agent: 'codex', ...(profileId ? { accountKey: profileId } : {}) }).then(
      (r) => live && setModels(r.models),
      () => live && setModels([]),
    );
    return () => {
      live = false;
    };
  }, [client, profileId]);

  const model = models.find((m) => m.id === value.model);
  const efforts = model ? model.efforts : EFFORTS;
  const set = (change: Partial<CodexSettings>) => onChange({ ...value, ...change });
  return (
    <div className="agent-options" role="group" aria-label="Codex options">
      <label>
        Profile
        <select value={profileId ?? ''} onChange={(e) => set({ profileId: e.target.value || null })}>
          {profiles.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
              {p.status === 'authenticated' ? '' : ' (signed out)'}
            </option>
          ))}
        </select>
      </label>
      <Choice label="Sandbox" value={value.sandbox} choices={SANDBOXES} onChange={(sandbox) => set({ sandbox })} />
      <Choice
        label="Approvals"
        value={value.approvalPolicy}
        choices={POLICIES}
        onChange={(approvalPolicy) => set({ approvalPolicy })}
      />
      <label>
        Model
        <select value={value.model ?? ''} onChange={(e) => set({ model: e.target.value || null, effort: null })}>
          <option value="">Default</option>
          {models.map((m) => (
            <option key={m.id} value={m.id} title={m.description ?? undefined}>
              {m.label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Effort
        <select
          value={value.effort ?? ''}
          onChange={(e) => set({ effort: (e.target.value || null) as CodexSettings['effort'] })}
        >
          <option value="">Default</option>
          {efforts.map((effort) => (
            <option key={effort} value={effort}>
              {effort}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
