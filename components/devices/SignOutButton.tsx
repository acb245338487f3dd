'use client';
import { useState } from 'react';
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
      <button className="sign-out danger" onClick={() => setAsking(true)} aria-expanded={asking}>
        Sign out
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

/** Settings' "This device": signing it out (DEV-1). */
export function ThisDeviceSection({ onSignOut }: { onSignOut: () => Promise<void> }) {
  return (
    <section className="card" aria-labelledby="this-device-title">
      <h2 id="this-device-title">This device</h2>
      <p className="muted">Signing out makes your computer forget this device; pairing it again needs a new code.</p>
      <SignOutButton onConfirm={onSignOut} />
    </section>
  );
}
