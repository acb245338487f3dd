import type { CommandRow, MessageRow, TimelineRow } from '../../lib/protocol/rows';

/** One entry of the list the timeline shows. */
export type TimelineEntry = { key: string; row: TimelineRow; command: CommandRow | null };

/**
 * In a shell session a message and the command it ran say the same text: they become one card,
 * the message's (SES-3). The command row is folded into its message by run id; a command whose
 * message is not among the rows (an older page) stays a card of its own.
 */
export function timelineEntries(rows: readonly TimelineRow[], shell: boolean): TimelineEntry[] {
  if (!shell) return rows.map((row) => ({ key: row.id, row, command: null }));
  const messageRuns = new Set(rows.flatMap((row) => (row.kind === 'message' ? [row.runId] : [])));
  const commands = new Map<string, CommandRow>();
  for (const row of rows)
    if (row.kind === 'command' && messageRuns.has(row.runId) && !commands.has(row.runId)) commands.set(row.runId, row);
  const folded = new Set([...commands.values()].map((row) => row.id));
  return rows.flatMap((row) => {
    if (folded.has(row.id)) return [];
    const command = row.kind === 'message' ? (commands.get((row as MessageRow).runId) ?? null) : null;
    return [{ key: row.id, row, command }];
  });
}
