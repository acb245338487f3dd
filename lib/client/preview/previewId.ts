/** A fresh preview id: 128 random bits as 32 hex digits (PRV-1: the caller generates it). */
export function newPreviewId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
