'use client';
import { useEffect, useRef, useState } from 'react';
import { CameraIcon, FileIcon, PaperclipIcon } from './AttachmentIcons';

/**
 * One button for attaching to a message (ATT-1), so the message box keeps the screen's width on a
 * phone: it opens a short menu of any files and the phone's camera (`accept="image/*"` with
 * `capture`, which opens the camera on phones and a picker elsewhere).
 */
export function AttachmentPicker({ onFiles }: { onFiles: (files: File[]) => void }) {
  const files = useRef<HTMLInputElement>(null);
  const camera = useRef<HTMLInputElement>(null);
  const picker = useRef<HTMLDivElement>(null);
  const [open, setOpen] = useState(false);
  const picked = (input: HTMLInputElement | null) => {
    if (!input?.files) return;
    onFiles([...input.files]);
    // The same file again is a new pick.
    input.value = '';
  };
  const choose = (input: HTMLInputElement | null) => {
    setOpen(false);
    input?.click();
  };

  useEffect(() => {
    if (!open) return;
    const close = (event: Event) => {
      if (event instanceof KeyboardEvent ? event.key === 'Escape' : !picker.current?.contains(event.target as Node))
        setOpen(false);
    };
    document.addEventListener('pointerdown', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('pointerdown', close);
      document.removeEventListener('keydown', close);
    };
  }, [open]);

  return (
    <div className="attach-picker" ref={picker}>
      <button
        type="button"
        className="attach-button"
        aria-label="Attach"
        title="Attach"
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen((on) => !on)}
      >
        <PaperclipIcon />
      </button>
      {open && (
        <div className="attach-menu card" role="menu" aria-label="Attach">
          <button type="button" role="menuitem" onClick={() => choose(files.current)}>
            <FileIcon /> Attach files
          </button>
          <button type="button" role="menuitem" onClick={() => choose(camera.current)}>
            <CameraIcon /> Take a photo
          </button>
        </div>
      )}
      <input
        ref={files}
        type="file"
        multiple
        hidden
        data-testid="attach-files"
        onChange={(e) => picked(e.currentTarget)}
      />
      <input
        ref={camera}
        type="file"
        accept="image/*"
        capture="environment"
        hidden
        data-testid="attach-camera"
        onChange={(e) => picked(e.currentTarget)}
      />
    </div>
  );
}
