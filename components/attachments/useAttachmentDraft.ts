'use client';
import { useCallback, useEffect, useRef, useState, type ClipboardEvent, type DragEvent } from 'react';
import { fileSha256 } from '../../lib/client/attachments/uploadAttachment';
import type { OutboxAttachment } from '../../lib/client/attachments/outboxAttachment';
import { MAX_ATTACHMENT_BYTES, isNativeImageType } from '../../lib/protocol/attachments';

/** A file picked for the next message: its digest is taken at once, while the user types (ATT-1). */
export interface DraftAttachment {
  id: string;
  file: File;
  name: string;
  mimeType: string;
  /** An object URL for the composer's preview of an image. */
  previewUrl: string | null;
  sha256: Promise<string>;
}

export interface AttachmentDraft {
  items: DraftAttachment[];
  error: string | null;
  add(files: Iterable<File>): void;
  remove(id: string): void;
  /** Hands the picked files over (digests ready) and empties the draft. */
  take(): Promise<OutboxAttachment[]>;
  /** Puts files handed over back (the outbox could not keep them). */
  restore(items: DraftAttachment[]): void;
  onPaste(event: ClipboardEvent): void;
  onDragOver(event: DragEvent): void;
  onDrop(event: DragEvent): void;
}

const GIB = 1024 * 1024 * 1024;

function draftOf(file: File): DraftAttachment {
  const mimeType = file.type || 'application/octet-stream';
  return {
    id: crypto.randomUUID(),
    file,
    // A pasted screenshot has no useful name.
    name: file.name || `pasted-${Date.now()}.${mimeType.split('/')[1] ?? 'bin'}`,
    mimeType,
    previewUrl: isNativeImageType(mimeType) ? URL.createObjectURL(file) : null,
    sha256: fileSha256(file),
  };
}

/** The composer's picked files: from the picker, the camera, a paste or a drop (ATT-1). */
export function useAttachmentDraft(): AttachmentDraft {
  const [items, setItems] = useState<DraftAttachment[]>([]);
  const [error, setError] = useState<string | null>(null);
  const current = useRef(items);
  current.current = items;

  useEffect(() => () => current.current.forEach((item) => item.previewUrl && URL.revokeObjectURL(item.previewUrl)), []);

  const add = useCallback((files: Iterable<File>) => {
    const accepted: DraftAttachment[] = [];
    for (const file of files) {
      if (file.size > MAX_ATTACHMENT_BYTES) {
        setError(`"${file.name}" is ${(file.size / GIB).toFixed(1)} GiB; an attachment may be at most 2 GiB.`);
        continue;
      }
      if (file.size === 0) {
        setError(`"${file.name}" is empty.`);
        continue;
      }
      const item = draftOf(file);
      // The rejection is shown when the message is sent; here it must not go unhandled.
      item.sha256.catch(() => undefined);
      accepted.push(item);
    }
    if (accepted.length > 0) setItems((list) => [...list, ...accepted]);
  }, []);

  const remove = useCallback((id: string) => {
    setError(null);
    setItems((list) => {
      const gone = list.find((item) => item.id === id);
      if (gone?.previewUrl) URL.revokeObjectURL(gone.previewUrl);
      return list.filter((item) => item.id !== id);
    });
  }, []);

  const take = useCallback(async () => {
    const taken = current.current;
    setItems([]);
    setError(null);
    const ready = await Promise.all(
      taken.map(async (item) => ({
        name: item.name,
        mimeType: item.mimeType,
        byteLength: item.file.size,
        sha256: await item.sha256,
        blob: item.file as Blob,
      })),
    );
    return ready;
  }, []);

  const restore = useCallback((restored: DraftAttachment[]) => setItems((list) => [...restored, ...list]), []);

  return {
    items,
    error,
    add,
    remove,
    take,
    restore,
    onPaste(event) {
      const files = [...event.clipboardData.files];
      if (files.length === 0) return;
      event.preventDefault();
      add(files);
    },
    onDragOver(event) {
      if ([...event.dataTransfer.types].includes('Files')) event.preventDefault();
    },
    onDrop(event) {
      if (event.dataTransfer.files.length === 0) return;
      event.preventDefault();
      add([...event.dataTransfer.files]);
    },
  };
}
