'use client';
import { useState } from 'react';
import { HeaderIcon } from '../header/HeaderIcon';
import './devices.css';

/** DEV-1: Sign out asks first; it revokes this device on the runtime, so pairing again needs a new code. */
export function SignOutButton({ onConfirm }: { onConfirm: () => Promise<void> }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);

  async function confirm() {
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      setBusy(false);
      setAsking(false);
    }
  }

  return (
    <>
      <button className="sign-out" onClick={() => setAsking(true)} aria-expanded={asking}>
        <HeaderIcon name="signOut" />
        <span>Sign out</span>
      </button>
      {asking && (
        <div className="card signout-confirm" role="alertdialog" aria-label="Sign out of this device?">
          <p>Sign out of this device? The computer forgets it, and pairing again needs a new code.</p>
          <div className="row">
            <button className="danger" onClick={confirm} disabled={busy}>
              Sign out of this device
            </button>
            <button onClick={() => setAsking(false)}>Cancel</button>
          </div>
        </div>
      )}
    </>
  );
}
