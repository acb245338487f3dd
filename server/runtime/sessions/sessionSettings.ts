import {
  DEFAULT_CLAUDE_SETTINGS,
  DEFAULT_CODEX_SETTINGS,
  SessionAgentSettingsSchema,
  type SessionAgentSettings,
} from '../../../lib/protocol/agents';
import type { AgentKind } from '../../../lib/protocol/rows';
import { invalidParams } from '../errors';
import type { Db } from '../store/database';

/** The settings a new session of `agent` starts with: Codex in workspace-write, never full access (ACC-5). */
export function defaultSettings(agent: AgentKind): SessionAgentSettings {
  if (agent === 'codex') return { codex: { ...DEFAULT_CODEX_SETTINGS } };
  if (agent === 'claude') return { claude: { ...DEFAULT_CLAUDE_SETTINGS } };
  return {};
}

/** Only the part for the session's own agent is kept; a part for another agent is an error. */
function forAgent(agent: AgentKind, settings: SessionAgentSettings, base: SessionAgentSettings): SessionAgentSettings {
  if (agent === 'codex' && settings.claude) throw invalidParams('A Codex session takes `codex` settings.');
  if (agent === 'claude' && settings.codex) throw invalidParams('A Claude session takes `claude` settings.');
  if ((agent === 'shell' || agent === 'terminal') && (settings.codex || settings.claude))
    throw invalidParams(`A ${agent} session takes no agent settings.`);
  return { ...base, ...settings };
}

/** session_agent_settings: each session's agent settings, read at the start of each turn (ACC-5). */
export class SessionSettings {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      get: db.prepare<[string], { settings: string }>(
        'SELECT settings FROM session_agent_settings WHERE session_id = ?',
      ),
      put: db.prepare(
        'INSERT INTO session_agent_settings (session_id, settings) VALUES (?, ?) ON CONFLICT (session_id) DO UPDATE SET settings = excluded.settings',
      ),
    };
  }

  of(sessionId: string, agent: AgentKind): SessionAgentSettings {
    const row = this.stmts.get.get(sessionId);
    return row ? SessionAgentSettingsSchema.parse(JSON.parse(row.settings)) : defaultSettings(agent);
  }

  /** Stores `settings` over the session's current ones and returns the result. */
  save(sessionId: string, agent: AgentKind, settings: SessionAgentSettings): SessionAgentSettings {
    const merged = forAgent(agent, settings, this.of(sessionId, agent));
    this.stmts.put.run(sessionId, JSON.stringify(merged));
    return merged;
  }
}
