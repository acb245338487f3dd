'use client';
import { useEffect, useState } from 'react';
import { RpcError, type RpcClient } from '../../lib/client/rpcClient';
import { indexedDbTimelinePages } from '../../lib/client/timeline/timelinePageCache';
import type { CommandRow } from '../../lib/protocol/rows';

export interface CommandAddress {
  sessionId: string;
  runId: string;
  commandId: string;
}

export type RouteCommand =
  { kind: 'loading' } | { kind: 'found'; row: CommandRow } | { kind: 'missing'; reason: string };

const matches = (row: CommandRow, address: CommandAddress) =>
  row.sessionId === address.sessionId && row.runId === address.runId && row.commandId === address.commandId;

/** Offline: the row as the newest saved timeline page has it (TL-4), if this device read it. */
async function savedCommandRow(address: CommandAddress): Promise<CommandRow | null> {
  const page = await indexedDbTimelinePages.read(address.sessionId, null, null);
  const row = page?.rows.find((r): r is CommandRow => r.kind === 'command' && matches(r, address));
  return row ?? null;
}

/**
 * The command row an output address names (UX-1): the row just tapped, else `sessions.command`,
 * else the saved timeline offline. It follows the row's live updates, so the viewer follows the
 * output (SES-4).
 */
export function useRouteCommand(
  client: RpcClient | null,
  address: CommandAddress | null,
  tapped: CommandRow | null,
): RouteCommand {
  const [state, setState] = useState<{ key: string; found: RouteCommand } | null>(null);
  const key = address ? `${address.sessionId}\0${address.runId}\0${address.commandId}` : '';

  useEffect(() => {
    if (!address) return;
    let live = true;
    const set = (found: RouteCommand) => live && setState({ key, found });
    if (client) {
      const { sessionId, runId, commandId } = address;
      client.call('sessions.command', { sessionId, runId, commandId }).then(
        ({ row }) => set({ kind: 'found', row }),
        (e: unknown) => {
          if (e instanceof RpcError && e.code === 'not_found')
            set({
              kind: 'missing',
              reason: 'That output is not on this computer any more, so here are your sessions.',
            });
          else console.warn('Could not read the command row', e);
        },
      );
    } else {
      void savedCommandRow(address).then(
        (row) => row && set({ kind: 'found', row }),
        () => undefined,
      );
    }
    const stop = client?.onNotification('timeline.row', ({ sessionId, row }) => {
      if (sessionId === address.sessionId && row.kind === 'command' && matches(row, address))
        set({ kind: 'found', row });
    });
    return () => {
      live = false;
      stop?.();
    };
    // `key` names the address; the object itself is new on every render.
  }, [client, key]);

  if (!address) return { kind: 'loading' };
  // Read after the tap, the runtime's row is at least as fresh as the tapped one.
  if (state?.key === key) return state.found;
  if (tapped && matches(tapped, address)) return { kind: 'found', row: tapped };
  return { kind: 'loading' };
}
