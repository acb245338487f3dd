'use client';
import { addressParts } from '../lib/client/addressParts';

/**
 * Asks before the reader fetches an address that did not come from the person's own typing or
 * clicking in the app (SEC-5): the whole address, its host emphasised (in its ASCII form, so a
 * look-alike name shows), Open or Cancel. Cancel has the focus, so a stray Enter opens nothing.
 */
export function ReaderConfirmation({
  url,
  hasSavedCopy,
  onOpen,
  onCancel,
}: {
  url: string;
  hasSavedCopy: boolean;
  onOpen: () => void;
  onCancel: () => void;
}) {
  const { before, host, after } = addressParts(url);
  return (
    <section
      className="card reader-confirm"
      role="alertdialog"
      aria-labelledby="reader-confirm-title"
      aria-describedby="reader-confirm-why"
      data-testid="reader-confirm"
    >
      <h2 id="reader-confirm-title">Open this web page?</h2>
      <p className="reader-confirm-address mono" data-testid="reader-confirm-address">
        {before}
        <strong>{host}</strong>
        {after}
      </p>
      <p id="reader-confirm-why" className="muted">
        This address came from a link or a page, not from you typing or clicking it in the app. Open it only if you
        expect this site: the runtime on your computer fetches it.
        {hasSavedCopy && ' Below is the copy saved on this device; nothing was fetched for it.'}
      </p>
      <div className="row">
        <button className="primary" onClick={onOpen}>
          Open
        </button>
        <button onClick={onCancel} autoFocus>
          Cancel
        </button>
      </div>
    </section>
  );
}
