import type { MessageAttachment } from '../../protocol/attachments';

/**
 * A file waiting in the outbox with its message (ATT-1): the bytes themselves (IndexedDB keeps
 * Blobs), so the upload survives a reload or a phone going offline, and its digest, taken once.
 */
export interface OutboxAttachment {
  name: string;
  mimeType: string;
  byteLength: number;
  sha256: string;
  blob: Blob;
}

/** How the outbox shows an attachment before the runtime has it. */
export const describeOutboxAttachment = (a: OutboxAttachment): Omit<MessageAttachment, 'uploadId'> => ({ name: a.name, mimeType: a.mimeType, byteLength: a.byteLength, sha256: a.sha256 });
