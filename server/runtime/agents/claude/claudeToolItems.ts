import type { AgentItem, ItemStatus } from '../../../../lib/protocol/rows';
import { wholeTextBody } from '../itemTextBody';
import { decodeToolOutput } from '../toolOutputEnvelope';
import { FILE_CHANGE_TOOLS, fileChangesOf } from './claudeFileChange';
import { subagentReport } from './claudeInternalText';
import { resolvePersistedResult, toolResultText } from './toolResultText';

/** A tool call as Claude asked for it. */
export interface ClaudeToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
  parentItemId: string | null;
  createdAt: number;
}

/** Its result, once the tool_result arrived. */
export interface ClaudeToolCompletion {
  content: unknown;
  isError: boolean;
  /** The SDK's structured output (live only; the saved history does not keep it). */
  toolUseResult: unknown;
  /** Claude Code reported the call refused by the permission mode (live `permission_denied`). */
  denied: boolean;
}

/** The Agent SDK's subagent tool, under its old and new name. */
export const SUBAGENT_TOOLS = new Set(['Task', 'Agent']);

/** Tool results Claude Code writes when a call was refused rather than failed. */
const REFUSED =
  /^(Claude requested permissions to |This command requires approval|Permission to use .* (has been|was) denied|The user doesn't want to proceed)/;

function str(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value);
}

/** `mcp__server__tool` as `mcp:server/tool`; other names stay as they are. */
export function toolDisplayName(name: string): string {
  const parts = name.split('__');
  return parts[0] === 'mcp' && parts.length >= 3 ? `mcp:${parts[1]}/${parts.slice(2).join('__')}` : name;
}

/** One line for people: what the call does. */
function toolTitle(call: ClaudeToolCall): string {
  const input = call.input;
  switch (call.name) {
    case 'Read':
      return `Read ${str(input.file_path)}`;
    case 'Grep':
      return `Grep "${str(input.pattern)}"${input.path ? ` in ${str(input.path)}` : ''}`;
    case 'Glob':
      return `Glob ${str(input.pattern)}`;
    case 'WebSearch':
      return `Search "${str(input.query)}"`;
    case 'WebFetch':
      return `Fetch ${str(input.url)}`;
    case 'ToolSearch':
      return `Find tools "${str(input.query)}"`;
    case 'Bash':
      return str(input.command);
    default:
      return toolDisplayName(call.name);
  }
}

/** Whether a failed result is Claude Code refusing the call (permission mode, the user's no). */
export function isRefusal(resultText: string): boolean {
  return REFUSED.test(resultText);
}

function statusOf(completion: ClaudeToolCompletion | null, text: string): ItemStatus {
  if (!completion) return 'running';
  if (!completion.isError) return 'completed';
  return completion.denied || REFUSED.test(text) ? 'declined' : 'failed';
}

/** The words of a failed or refused result, without Claude Code's `<tool_use_error>` wrapper. */
function errorOf(status: ItemStatus, text: string): string | null {
  if (status !== 'failed' && status !== 'declined') return null;
  return (
    text.replace(/<\/?tool_use_error>/g, '').trim() ||
    `${status === 'declined' ? 'Refused' : 'Failed'} without a message.`
  );
}

type TodoStatus = 'pending' | 'inProgress' | 'completed';
function todoStatus(value: unknown): TodoStatus {
  return value === 'in_progress' ? 'inProgress' : value === 'completed' ? 'completed' : 'pending';
}

/**
 * The row of one Claude tool call, running or completed in place with its result (TL-1): file
 * edits become file changes with diffs, TodoWrite a plan, Task/Agent a subagent whose own
 * timeline is keyed by this call's id, any other tool (Read, WebSearch, MCP…) a tool call whose
 * result is unwrapped from its JSON envelopes (TL-2). Bash in the session's own timeline is a
 * command row and never comes here.
 */
export function toolItem(call: ClaudeToolCall, completion: ClaudeToolCompletion | null): AgentItem {
  const base = { itemId: call.id, parentItemId: call.parentItemId, createdAt: call.createdAt };
  const rawText = completion ? toolResultText(completion.content) : '';
  const status = statusOf(completion, rawText);
  const error = errorOf(status, rawText);
  if (FILE_CHANGE_TOOLS.has(call.name)) {
    const toolUseResult = completion && !completion.isError ? completion.toolUseResult : null;
    return {
      ...base,
      kind: 'fileChange',
      status,
      files: fileChangesOf(call.name, call.input, toolUseResult, completion ? rawText : null),
    };
  }
  if (call.name === 'TodoWrite' && Array.isArray(call.input.todos)) {
    const entries = call.input.todos.map((todo: unknown) => {
      const t = (typeof todo === 'object' && todo !== null ? todo : {}) as Record<string, unknown>;
      return { text: str(t.content), status: todoStatus(t.status) };
    });
    return { ...base, kind: 'plan', explanation: null, entries };
  }
  // A long result Claude Code kept in a file of its own is read whole from there (OUT-8).
  const persisted = completion ? resolvePersistedResult(rawText) : null;
  const source = persisted !== null && persisted !== rawText ? persisted : completion?.content;
  const result = completion ? wholeTextBody(decodeToolOutput(source).text) : null;
  if (SUBAGENT_TOOLS.has(call.name)) {
    const agentType = typeof call.input.subagent_type === 'string' ? call.input.subagent_type : null;
    // TL-8: the report, without the frame and the ids Claude Code hands the model with it.
    const report = completion ? wholeTextBody(subagentReport(decodeToolOutput(source).text)) : null;
    return {
      ...base,
      kind: 'subagent',
      title: str(call.input.description) || 'Subagent',
      agentType,
      status,
      result: report,
    };
  }
  return {
    ...base,
    kind: 'toolCall',
    tool: toolDisplayName(call.name),
    title: toolTitle(call),
    input: wholeTextBody(JSON.stringify(call.input, null, 2)),
    status,
    result: status === 'completed' ? result : null,
    error,
  };
}
