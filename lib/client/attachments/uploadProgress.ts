/** Bytes of each outbox message's attachments confirmed so far, in this tab (ATT-1), for the outbox to show. */
export interface UploadProgress {
  confirmedBytes: number;
  totalBytes: number;
}

const progress = new Map<string, UploadProgress>();
const listeners = new Set<() => void>();

export function reportUploadProgress(operationId: string, value: UploadProgress | null): void {
  if (value) progress.set(operationId, value);
  else progress.delete(operationId);
  for (const listener of listeners) listener();
}

export function uploadProgressOf(operationId: string): UploadProgress | undefined {
  return progress.get(operationId);
}

export function subscribeUploadProgress(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
