import type { CommandHandle, CommandResult } from '../agents/agent';
import type { CommandOutputStore } from '../output/commandOutputStore';
import { CommandOutputStream } from '../output/commandOutputStream';
import type { SavedCopyReads } from '../output/savedCopyReads';
import type { SessionStore } from './sessionStore';
import type { RowThrottle } from './rowThrottle';

const SHUTDOWN_MESSAGE = 'Stopped because the runtime shut down.';
export const INTERRUPTED_MESSAGE = 'The runtime stopped while this command was running.';
/** TL-9: a command the runtime stopped while it waited for the person's approval: it never ran. */
export const NOT_RUN_AT_RESTART_MESSAGE = 'Not run: it was waiting for your approval when the runtime stopped.';
/** SES-5: the command's process group outlived the runtime and was stopped by the next one. */
export const INTERRUPTED_AND_STOPPED_MESSAGE =
  'The runtime stopped while this command was running; its processes were stopped when the runtime started again.';

export const commandRowKey = (sessionId: string, runId: string, commandId: string) =>
  `${sessionId}\u0000${runId}\u0000${commandId}`;

/**
 * Turns an agent's reports about one command into its command row and its output artifact:
 * the row exists before the first byte, every delta goes through the write-ahead path, and the
 * row changes only after the bytes it announces are committed (OUT-1, SES-4).
 */
export function recordCommand(
  deps: { sessions: SessionStore; outputs: CommandOutputStore; rows: RowThrottle; savedCopies: SavedCopyReads },
  run: { sessionId: string; runId: string; signal: AbortSignal },
  commandId: string,
  command: string,
): CommandHandle {
  const key = { runId: run.runId, commandId };
  const rowKey = commandRowKey(run.sessionId, run.runId, commandId);
  deps.sessions.db.transaction(() => {
    deps.sessions.insertCommand(run.runId, commandId, run.sessionId, command);
    deps.outputs.create(key, run.sessionId);
  })();
  deps.rows.touch(rowKey);
  const stream = new CommandOutputStream(deps.outputs, key, () => deps.rows.touch(rowKey));
  return {
    output: (delta) => stream.push(delta),
    whenDrained: () => stream.whenDrained(),
    async complete(result: CommandResult) {
      const settled = await stream.finish(result.aggregate);
      const error =
        result.error ?? (result.status === 'cancelled' && run.signal.reason === 'shutdown' ? SHUTDOWN_MESSAGE : null);
      deps.sessions.endCommand(run.runId, commandId, result.status, result.exitCode, error);
      deps.rows.touch(rowKey, true);
      // OUT-4: an unproven stream may still be whole in the agent's saved copy; the turn does not wait for it.
      if (settled.sourceIncomplete && result.readSavedOutput) {
        const read = deps.savedCopies.enqueue({
          key,
          ledger: stream.ledger,
          aggregate: result.aggregate,
          read: result.readSavedOutput,
        });
        void read.then((state) => {
          if (state && (state.generation !== settled.generation || !state.sourceIncomplete))
            deps.rows.touch(rowKey, true);
        });
      }
    },
  };
}
