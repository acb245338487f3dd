'use client';
import { useRef } from 'react';
import { CameraIcon, PaperclipIcon } from './AttachmentIcons';

/**
 * Two ways to pick files for a message (ATT-1): any files, and the phone's camera
 * (`accept="image/*"` with `capture`, which opens the camera on phones and a picker elsewhere).
 */
export function AttachmentPicker({ onFiles }: { onFiles: (files: File[]) => void }) {
  const files = useRef<HTMLInputElement>(null);
  const camera = useRef<HTMLInputElement>(null);
  const picked = (input: HTMLInputElement | null) => {
    if (!input?.files) return;
    onFiles([...input.files]);
    // The same file again is a new pick.
    input.value = '';
  };
  return (
    <div className="attach-picker">
      <button type="button" className="attach-button" aria-label="Attach files" title="Attach files" onClick={() => files.current?.click()}>
        <PaperclipIcon />
      </button>
      <button type="button" className="attach-button" aria-label="Take a photo" title="Take a photo" onClick={() => camera.current?.click()}>
        <CameraIcon />
      </button>
      <input ref={files} type="file" multiple hidden data-testid="attach-files" onChange={(e) => picked(e.currentTarget)} />
      <input ref={camera} type="file" accept="image/*" capture="environment" hidden data-testid="attach-camera" onChange={(e) => picked(e.currentTarget)} />
    </div>
  );
}
