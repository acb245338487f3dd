'use client';
import { useState, type FormEvent } from 'react';
import type { Device } from '../../lib/protocol/rows';
import { agoInWords, dateInWords } from './deviceTimes';

interface DeviceItemProps {
  device: Device;
  now: number;
  onRename(name: string): Promise<void>;
  onRevoke(): Promise<void>;
}

/** One paired device (DEV-1): when it paired and was last seen, Rename, and Revoke after a confirmation. */
export function DeviceItem({ device, now, onRename, onRevoke }: DeviceItemProps) {
  const [mode, setMode] = useState<'view' | 'rename' | 'confirmRevoke'>('view');
  const [name, setName] = useState(device.name);
  const [busy, setBusy] = useState(false);

  async function rename(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    try {
      await onRename(name.trim());
      setMode('view');
    } finally {
      setBusy(false);
    }
  }

  async function revoke() {
    setBusy(true);
    try {
      await onRevoke();
      setMode('view');
    } finally {
      setBusy(false);
    }
  }

  return (
    <li className="device" data-device-id={device.id} aria-label={device.name}>
      {mode === 'rename' ? (
        <form className="row" onSubmit={rename}>
          <input
            className="grow"
            aria-label="Device name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            maxLength={64}
            required
            autoFocus
          />
          <button className="primary" type="submit" disabled={busy || name.trim() === ''}>
            Save
          </button>
          <button type="button" onClick={() => setMode('view')}>
            Cancel
          </button>
        </form>
      ) : (
        <div className="row">
          <div className="grow">
            <strong className="device-name">
              <bdi>{device.name}</bdi>
            </strong>{' '}
            {device.current && <span className="pill">This device</span>}
            <div className="muted">
              Paired {dateInWords(device.createdAt)} ·{' '}
              {device.lastSeenAt === null ? 'never connected' : `last seen ${agoInWords(device.lastSeenAt, now)}`}
            </div>
          </div>
          <button onClick={() => setMode('rename')}>Rename</button>
          {!device.current && (
            <button className="danger" onClick={() => setMode('confirmRevoke')}>
              Revoke
            </button>
          )}
        </div>
      )}
      {mode === 'confirmRevoke' && (
        <div className="row confirm" role="alertdialog" aria-label={`Revoke ${device.name}?`}>
          <span className="grow">
            Revoke <bdi>{device.name}</bdi>? It must confirm on its own screen; then it is signed out at once and needs
            a new code to pair again.
          </span>
          <button className="danger" onClick={revoke} disabled={busy}>
            Ask to revoke
          </button>
          <button onClick={() => setMode('view')}>Cancel</button>
        </div>
      )}
    </li>
  );
}
