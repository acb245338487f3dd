import type { RunRecord } from '../sessions/sessionStore';
import { SESSION_TOOL_NAMES, SESSION_TOOL_SERVER_NAME } from './sessionToolProtocol';

/**
 * The text an agent is given for its run (MSG-1): a message from another session says which
 * session sent it and how to answer; the timeline shows the message's own text with a link.
 */
export function agentTextOf(run: RunRecord): string {
  const from = run.fromSession;
  if (!from) return run.text;
  return [
    `Message from the HB Code session "${from.title}" (session id ${from.sessionId}), sent by its agent.`,
    `To answer, call the ${SESSION_TOOL_SERVER_NAME} tool ${SESSION_TOOL_NAMES.send} with that session id.`,
    '',
    run.text,
  ].join('\n');
}
