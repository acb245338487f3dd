import type { OutboxAttachment } from './outboxAttachment';
import { reportUploadProgress } from './uploadProgress';
import { uploadAttachment, type UploadClient } from './uploadAttachment';

/**
 * Uploads every file of one outbox message, in order, and answers their upload ids for its
 * chat.send (ATT-1). Each upload resumes where the runtime stands, so calling this again after a
 * lost connection sends only what is missing; it never sends the message itself.
 */
export async function uploadEntryAttachments(
  client: UploadClient,
  entry: { operationId: string; sessionId: string; attachments?: OutboxAttachment[] },
): Promise<string[]> {
  const attachments = entry.attachments ?? [];
  const totalBytes = attachments.reduce((sum, a) => sum + a.byteLength, 0);
  const uploadIds: string[] = [];
  let doneBytes = 0;
  try {
    for (const attachment of attachments) {
      const status = await uploadAttachment(
        client,
        {
          sessionId: entry.sessionId,
          blob: attachment.blob,
          name: attachment.name,
          mimeType: attachment.mimeType,
          sha256: attachment.sha256,
        },
        {
          onProgress: (confirmed) =>
            reportUploadProgress(entry.operationId, { confirmedBytes: doneBytes + confirmed, totalBytes }),
        },
      );
      uploadIds.push(status.uploadId);
      doneBytes += attachment.byteLength;
    }
  } finally {
    reportUploadProgress(entry.operationId, null);
  }
  return uploadIds;
}
