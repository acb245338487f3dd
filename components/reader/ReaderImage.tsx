'use client';
import { useEffect, useState } from 'react';
import { readerImage } from '../../lib/client/reader/readerImages';
import type { RpcClient } from '../../lib/client/rpcClient';
import './reader.css';

type Shown = { kind: 'loading' } | { kind: 'image'; src: string } | { kind: 'missing'; why: string };

/**
 * One image of a page in the reader (MD-5), drawn from a blob the desktop fetched, never from the
 * page's own host. Until it arrives, or when it cannot, its alt text stands in its place.
 */
export function ReaderImage({ client, src, alt }: { client: RpcClient | null; src: string; alt: string }) {
  const [shown, setShown] = useState<Shown>({ kind: 'loading' });
  const connected = client !== null;
  useEffect(() => {
    let live = true;
    let objectUrl: string | null = null;
    readerImage(client, src).then(
      (blob) => {
        if (!live) return;
        if (!blob) return setShown({ kind: 'missing', why: 'offline, not kept on this device' });
        objectUrl = URL.createObjectURL(blob);
        setShown({ kind: 'image', src: objectUrl });
      },
      (error: unknown) =>
        live && setShown({ kind: 'missing', why: error instanceof Error ? error.message : String(error) }),
    );
    return () => {
      live = false;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
    // NOTE: keyed on being connected, not on the client object: asked again when the connection comes back.
  }, [src, connected]);
  if (shown.kind === 'image') return <img src={shown.src} alt={alt} className="reader-image" />;
  return (
    <span
      className="reader-image-missing"
      data-image-state={shown.kind}
      title={shown.kind === 'missing' ? `Image not shown: ${shown.why}` : undefined}
    >
      {alt ? `[${alt}]` : '[image]'}
      {shown.kind === 'missing' && <span className="muted"> · not shown: {shown.why}</span>}
    </span>
  );
}
