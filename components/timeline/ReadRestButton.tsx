'use client';
import type { RpcClient } from '../../lib/client/rpcClient';
import { formatBytes } from '../formatting';
import type { ItemText } from './useItemText';

/**
 * "Read more (1.2 MiB left)": the next slice of a truncated item text (TL-1), offered once what is
 * here has all been shown; with the error of the last read, if it failed.
 */
export function ReadRestButton({ client, item, offer }: { client: RpcClient | null; item: ItemText; offer: boolean }) {
  return (
    <>
      {offer && !item.complete && (
        <button type="button" onClick={item.loadMore} disabled={!client || item.loading}>
          {item.loading
            ? 'Reading…'
            : client
              ? `Read more (${formatBytes(item.remainingBytes)} left)`
              : `${formatBytes(item.remainingBytes)} more: connect to read`}
        </button>
      )}
      {item.error && (
        <span className="error" role="alert">
          {item.error}
        </span>
      )}
    </>
  );
}
