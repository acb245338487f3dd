'use client';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { RpcClient } from '../../lib/client/rpcClient';
import { MAX_COMMAND_OUTPUT_RANGE_BYTES } from '../../lib/protocol/version';
import type { TextBody } from '../../lib/protocol/rows';

/** Which long text of which item (TL-1): `field` is `text`, `input`, `result`, `detail` or `files.<i>.diff`. */
export interface ItemTextSource {
  sessionId: string;
  parentItemId: string | null;
  itemId: string;
  field: string;
}

export interface ItemText {
  text: string;
  /** The whole text is here: it was never truncated, or every slice has been read. */
  complete: boolean;
  /** UTF-8 bytes of the whole text not read yet. */
  remainingBytes: number;
  loading: boolean;
  error: string | null;
  /** Reads the next 256 KiB slice through `sessions.itemText`. */
  loadMore: () => void;
}

function bytesFromBase64(data: string): Uint8Array {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

interface ReadState {
  text: string;
  bytesRead: number;
}

/**
 * A long item text (TextBody): the inline prefix at once, the rest on request, slice by slice
 * (TL-1, TL-4: never read whole). A slice may end inside a character: one streaming decoder per
 * text carries the cut bytes over to the next slice.
 */
export function useItemText(client: RpcClient | null, source: ItemTextSource, body: TextBody): ItemText {
  const initial = useCallback(
    (): ReadState => ({ text: body.text, bytesRead: new TextEncoder().encode(body.text).length }),
    [body.text],
  );
  const [state, setState] = useState<ReadState>(initial);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const decoder = useRef(new TextDecoder());
  const { sessionId, parentItemId, itemId, field } = source;

  // A new inline text (the row was updated in place) starts the reading over.
  useEffect(() => {
    // On mount the state already holds this text: keeping it spares every text row a second render (TL-4).
    setState((current) => (current.text === body.text ? current : initial()));
    setError(null);
    decoder.current = new TextDecoder();
  }, [initial, body.text]);

  const complete = !body.truncated || state.bytesRead >= body.byteLength;
  const loadMore = useCallback(() => {
    if (!client || complete || loading) return;
    setLoading(true);
    setError(null);
    const offset = state.bytesRead;
    client
      .call('sessions.itemText', {
        sessionId,
        ...(parentItemId ? { parentItemId } : {}),
        itemId,
        field,
        offset,
        length: MAX_COMMAND_OUTPUT_RANGE_BYTES,
      })
      .then((slice) => {
        const bytes = bytesFromBase64(slice.dataBase64);
        const end = slice.offset + slice.byteCount;
        const last = end >= slice.availableBytes || slice.byteCount === 0;
        const more = decoder.current.decode(bytes, { stream: !last });
        setState((current) =>
          current.bytesRead === offset
            ? { text: current.text + more, bytesRead: last ? Math.max(end, body.byteLength) : end }
            : current,
        );
      })
      .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)))
      .finally(() => setLoading(false));
  }, [client, complete, loading, state.bytesRead, sessionId, parentItemId, itemId, field, body.byteLength]);

  return {
    text: state.text,
    complete,
    remainingBytes: complete ? 0 : body.byteLength - state.bytesRead,
    loading,
    error,
    loadMore,
  };
}
