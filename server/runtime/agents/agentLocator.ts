import fs from 'node:fs';
import path from 'node:path';
import { agentPackagesDir } from '../../../scripts/install-agents.mjs';

/** How to start one agent program. */
export interface AgentProgram {
  file: string;
  args: string[];
  /** Where it was found, for the log and the app. */
  origin: 'env' | 'path' | 'project';
}

export function isExecutableFile(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && isExecutableFile(path.join(dir, name))) return path.join(dir, name);
  }
  return null;
}

/** The project's own pinned install (scripts/install-agents.mjs), when present. */
function projectPackage(relative: string): string | null {
  const file = path.join(agentPackagesDir(), 'node_modules', relative);
  return fs.existsSync(file) ? file : null;
}

/** Codex: HBCODE_CODEX_BIN, then `codex` on PATH, then the project's pinned package. */
export function locateCodex(env: NodeJS.ProcessEnv = process.env): AgentProgram | null {
  // A variable that names no program means "not available", not "look elsewhere".
  if (env.HBCODE_CODEX_BIN)
    return isExecutableFile(env.HBCODE_CODEX_BIN) ? { file: env.HBCODE_CODEX_BIN, args: [], origin: 'env' } : null;
  const found = onPath('codex');
  if (found) return { file: found, args: [], origin: 'path' };
  const launcher = projectPackage('@openai/codex/bin/codex.js');
  return launcher ? { file: process.execPath, args: [launcher], origin: 'project' } : null;
}

export interface ClaudeProgram {
  /** The Agent SDK's module, loaded by the agent host. */
  sdkModule: string;
  /** The Claude Code executable, when not the SDK's own bundled one. */
  executable: string | null;
  origin: AgentProgram['origin'];
}

/**
 * Claude: the Agent SDK always comes from the project's pinned package (the host is written
 * against it); the executable is HBCODE_CLAUDE_BIN, then `claude` on PATH, then the SDK's own.
 */
export function locateClaude(env: NodeJS.ProcessEnv = process.env): ClaudeProgram | null {
  const sdkModule = projectPackage('@anthropic-ai/claude-agent-sdk/sdk.mjs');
  if (!sdkModule) return null;
  if (env.HBCODE_CLAUDE_BIN)
    return isExecutableFile(env.HBCODE_CLAUDE_BIN)
      ? { sdkModule, executable: env.HBCODE_CLAUDE_BIN, origin: 'env' }
      : null;
  const found = onPath('claude');
  if (found) return { sdkModule, executable: found, origin: 'path' };
  return { sdkModule, executable: null, origin: 'project' };
}
