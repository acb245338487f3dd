import { childProgram } from '../process/childProgram';
import { SESSION_TOOL_NAMES, SESSION_TOOL_SERVER_NAME } from './sessionToolProtocol';

/** How an agent starts a session's tool server (MSG-1): a stdio MCP server, as both agents' configuration names one. */
export interface SessionToolServerSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The session tool server for a session, with the channel's environment for it (MSG-2). */
export function sessionToolServerSpec(env: Record<string, string>): SessionToolServerSpec {
  const program = childProgram('sessionTools');
  return { command: program.file, args: program.args, env };
}

/**
 * Codex's thread configuration (`thread/start`, `thread/resume` `config`): the server, its tools
 * run without asking. `required`: the thread starts once the server is up, so its first turn
 * already offers the tools (Codex otherwise starts MCP servers alongside the turn).
 */
export function codexSessionToolConfig(spec: SessionToolServerSpec): Record<string, unknown> {
  const prefix = `mcp_servers.${SESSION_TOOL_SERVER_NAME}`;
  return {
    [`${prefix}.command`]: spec.command,
    [`${prefix}.args`]: spec.args,
    [`${prefix}.env`]: spec.env,
    [`${prefix}.default_tools_approval_mode`]: 'approve',
    [`${prefix}.required`]: true,
  };
}

/** The tools as Claude names them, allowed without asking: messages are the recipient's to approve (MSG-4). */
const CLAUDE_SESSION_TOOLS = Object.values(SESSION_TOOL_NAMES).map(
  (name) => `mcp__${SESSION_TOOL_SERVER_NAME}__${name}`,
);

/** The Claude host's run request fields (`mcpServers`, `toolsAllowed`) for the session tool server. */
export function claudeSessionTools(spec: SessionToolServerSpec | null): {
  mcpServers?: Record<string, SessionToolServerSpec>;
  toolsAllowed?: string[];
} {
  return spec ? { mcpServers: { [SESSION_TOOL_SERVER_NAME]: spec }, toolsAllowed: CLAUDE_SESSION_TOOLS } : {};
}
