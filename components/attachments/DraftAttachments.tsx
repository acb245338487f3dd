'use client';
import type { AttachmentDraft } from './useAttachmentDraft';
import { CloseIcon, FileIcon } from './AttachmentIcons';
import { formatBytes } from './formatBytes';
import './attachments.css';

/** The files picked for the next message, each removable, above the message box (ATT-1). */
export function DraftAttachments({ draft }: { draft: AttachmentDraft }) {
  if (draft.items.length === 0 && !draft.error) return null;
  return (
    <div className="attach-draft" role="group" aria-label="Attachments for the next message">
      {draft.error && (
        <p className="error" role="alert">
          {draft.error}
        </p>
      )}
      <ul>
        {draft.items.map((item) => (
          <li key={item.id} className="attach-chip" data-attachment={item.name}>
            {item.previewUrl ? (
              <img src={item.previewUrl} alt="" />
            ) : (
              <span className="attach-icon">
                <FileIcon />
              </span>
            )}
            <span className="attach-name ellipsis">{item.name}</span>
            <span className="muted">{formatBytes(item.file.size)}</span>
            <button
              type="button"
              className="attach-remove"
              aria-label={`Remove ${item.name}`}
              onClick={() => draft.remove(item.id)}
            >
              <CloseIcon />
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
