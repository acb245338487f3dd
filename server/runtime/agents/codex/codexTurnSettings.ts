import { DEFAULT_CODEX_SETTINGS, type CodexSettings, type SessionAgentSettings } from '../../../../lib/protocol/agents';

/** Codex's sandbox policy for a session's choice (ACC-5); workspace-write writes only the project. */
function sandboxPolicy(sandbox: CodexSettings['sandbox'], cwd: string): Record<string, unknown> {
  if (sandbox === 'read-only') return { type: 'readOnly', networkAccess: false };
  if (sandbox === 'danger-full-access') return { type: 'dangerFullAccess' };
  return {
    type: 'workspaceWrite',
    writableRoots: [cwd],
    networkAccess: false,
    excludeTmpdirEnvVar: false,
    excludeSlashTmp: false,
  };
}

/** The session's Codex settings, with the defaults (workspace-write, on-request) where unset. */
export function codexSettingsOf(settings: SessionAgentSettings): CodexSettings {
  return { ...DEFAULT_CODEX_SETTINGS, ...settings.codex };
}

/** The turn/start overrides for one turn: sandbox, approval policy, and model and effort when chosen. */
export function turnOverrides(settings: CodexSettings, cwd: string): Record<string, unknown> {
  return {
    approvalPolicy: settings.approvalPolicy,
    sandboxPolicy: sandboxPolicy(settings.sandbox, cwd),
    ...(settings.model ? { model: settings.model } : {}),
    ...(settings.effort ? { effort: settings.effort } : {}),
  };
}
