'use client';
import { useEffect, useState } from 'react';
import { readAttachmentBlob } from '../../lib/client/attachments/readAttachment';
import type { RpcClient } from '../../lib/client/rpcClient';
import { isNativeImageType, type MessageAttachment } from '../../lib/protocol/attachments';
import type { MessageRow } from '../../lib/protocol/rows';
import { CloseIcon, FileIcon } from './AttachmentIcons';
import { formatBytes } from './formatBytes';
import './attachments.css';

/** Larger images are listed like files: a thumbnail would read all of it. */
const MAX_THUMBNAIL_BYTES = 32 * 1024 * 1024;

/** One image, read through verified chunks once shown (FILE-2); null until it arrived. */
function useAttachmentUrl(
  client: RpcClient | null,
  sessionId: string,
  attachment: MessageAttachment,
): { url: string | null; error: string | null } {
  const [state, setState] = useState<{ url: string | null; error: string | null }>({ url: null, error: null });
  useEffect(() => {
    if (!client) return;
    const abort = new AbortController();
    let url: string | null = null;
    readAttachmentBlob(client, sessionId, attachment, abort.signal).then(
      (blob) => {
        if (abort.signal.aborted) return;
        url = URL.createObjectURL(blob);
        setState({ url, error: null });
      },
      (error: unknown) => {
        if (!abort.signal.aborted)
          setState({ url: null, error: error instanceof Error ? error.message : 'The image could not be read.' });
      },
    );
    return () => {
      abort.abort();
      if (url) URL.revokeObjectURL(url);
    };
  }, [client, sessionId, attachment]);
  return state;
}

function ImageThumbnail({
  client,
  sessionId,
  attachment,
}: {
  client: RpcClient | null;
  sessionId: string;
  attachment: MessageAttachment;
}) {
  const { url, error } = useAttachmentUrl(client, sessionId, attachment);
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        className="attach-thumb"
        aria-label={`Open ${attachment.name} full size`}
        disabled={!url}
        onClick={() => setOpen(true)}
        title={error ?? attachment.name}
      >
        {url ? <img src={url} alt={attachment.name} /> : <span className="muted">{error ? '!' : '…'}</span>}
      </button>
      {open && url && (
        <div
          className="attach-full"
          role="dialog"
          aria-modal="true"
          aria-label={attachment.name}
          onClick={() => setOpen(false)}
        >
          <img src={url} alt={attachment.name} />
          <button type="button" className="attach-full-close" aria-label="Close" onClick={() => setOpen(false)}>
            <CloseIcon />
          </button>
        </div>
      )}
    </>
  );
}

/** A message's attachments in the timeline (ATT-1): images as thumbnails that open full size, other files by name and size. */
export function AttachmentThumbnails({ client, row }: { client: RpcClient | null; row: MessageRow }) {
  if (!row.attachments?.length) return null;
  return (
    <ul className="attach-list" aria-label="Attachments">
      {row.attachments.map((attachment) => (
        <li key={attachment.uploadId} data-attachment={attachment.name}>
          {isNativeImageType(attachment.mimeType) && attachment.byteLength <= MAX_THUMBNAIL_BYTES ? (
            <ImageThumbnail client={client} sessionId={row.sessionId} attachment={attachment} />
          ) : (
            <span className="attach-file">
              <FileIcon /> <span className="ellipsis">{attachment.name}</span>{' '}
              <span className="muted">{formatBytes(attachment.byteLength)}</span>
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}
