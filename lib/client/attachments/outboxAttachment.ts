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
