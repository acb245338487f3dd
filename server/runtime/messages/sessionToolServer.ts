/**
 * The session tool server (MSG-1): a stdio MCP server that the runtime gives Codex and Claude in
 * every session, with `list_sessions` and `send_message`. It holds no state: each call goes to the
 * runtime over the loopback channel named in its environment, with the key of its own session
 * (MSG-2). Run as a child of the agent: `node dist/sessionTools.mjs`.
 */
import crypto from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import {
  MAX_SESSION_MESSAGE_CHARS,
  SESSION_TOOL_ENV,
  SESSION_TOOL_NAMES,
  SESSION_TOOL_SERVER_NAME,
  SessionToolAnswerSchema,
  type SessionToolAnswer,
  type SessionToolRequest,
} from './sessionToolProtocol';

/** A call the runtime did not answer is tried again this many times, with the same call id (MSG-2). */
const ATTEMPTS = 3;
const RETRY_DELAY_MS = 500;

const url = process.env[SESSION_TOOL_ENV.url];
const key = process.env[SESSION_TOOL_ENV.key];
if (!url || !key) {
  process.stderr.write(
    `The session tool server needs ${SESSION_TOOL_ENV.url} and ${SESSION_TOOL_ENV.key}; the HB Code runtime sets them.\n`,
  );
  process.exit(2);
}

async function callRuntime(request: SessionToolRequest): Promise<SessionToolAnswer> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    try {
      const response = await fetch(url!, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(request),
      });
      return SessionToolAnswerSchema.parse(await response.json());
    } catch (error) {
      lastError = error;
      if (attempt < ATTEMPTS) await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS * attempt));
    }
  }
  return {
    ok: false,
    code: 'unavailable',
    message: `The HB Code desktop did not answer: ${lastError instanceof Error ? lastError.message : String(lastError)}`,
  };
}

function toolResult(answer: SessionToolAnswer) {
  if (!answer.ok)
    return { content: [{ type: 'text' as const, text: `Error (${answer.code}): ${answer.message}` }], isError: true };
  return {
    content: [
      { type: 'text' as const, text: JSON.stringify('sessions' in answer ? { sessions: answer.sessions } : answer) },
    ],
  };
}

const server = new McpServer({ name: SESSION_TOOL_SERVER_NAME, version: '1.0.0' });
server.registerTool(
  SESSION_TOOL_NAMES.list,
  {
    description:
      'Lists the sessions of this HB Code desktop: each one\'s id, title, agent and project ("self" marks this session).',
    inputSchema: {},
  },
  async () => toolResult(await callRuntime({ tool: 'list_sessions' })),
);
server.registerTool(
  SESSION_TOOL_NAMES.send,
  {
    description:
      'Sends a message to another session of this HB Code desktop (an id from list_sessions). Its agent gets the message as a new turn and may answer by sending a message back to this session.',
    inputSchema: { session_id: z.string().min(1), text: z.string().min(1).max(MAX_SESSION_MESSAGE_CHARS) },
  },
  // One call id per tool call: the retries inside callRuntime reuse it, so the message is queued once.
  async ({ session_id, text }) =>
    toolResult(await callRuntime({ tool: 'send_message', callId: crypto.randomUUID(), sessionId: session_id, text })),
);
await server.connect(new StdioServerTransport());
