'use client';
import { useSyncExternalStore } from 'react';
import type { OutboxAttachment } from '../../lib/client/attachments/outboxAttachment';
import { subscribeUploadProgress, uploadProgressOf } from '../../lib/client/attachments/uploadProgress';
import { formatBytes } from './formatBytes';

/** The files of an unsent message, and how far their upload is (ATT-1). */
export function OutboxAttachments({
  operationId,
  attachments,
}: {
  operationId: string;
  attachments: OutboxAttachment[] | undefined;
}) {
  const progress = useSyncExternalStore(
    subscribeUploadProgress,
    () => uploadProgressOf(operationId),
    () => undefined,
  );
  if (!attachments?.length) return null;
  return (
    <div className="muted" data-upload={progress ? 'running' : 'idle'}>
      {attachments.map((a) => a.name).join(', ')}
      {progress && (
        <>
          {' · '}
          <span role="status">
            Uploading {formatBytes(progress.confirmedBytes)} of {formatBytes(progress.totalBytes)}
          </span>
        </>
      )}
    </div>
  );
}
