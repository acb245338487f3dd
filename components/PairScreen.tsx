'use client';
import { useEffect, useState, type FormEvent } from 'react';
import { savePairing, type DevicePairing } from '../lib/client/appDb';
import { rpcUrlFor } from '../lib/client/connection';
import { RpcClient, RpcError, type WebSocketLike } from '../lib/client/rpcClient';

function defaultDeviceName(): string {
  const ua = navigator.userAgent;
  if (/iPhone|Android.+Mobile/.test(ua)) return 'Phone';
  if (/iPad|Android/.test(ua)) return 'Tablet';
  return 'Browser';
}

async function pairLocally(code: string, deviceName: string): Promise<DevicePairing> {
  const socket = new WebSocket(rpcUrlFor(window.location));
  const client = new RpcClient(socket as unknown as WebSocketLike);
  try {
    await client.opened;
    const { token, deviceId } = await client.call('pair.redeem', { code, deviceName });
    return { token, deviceId, deviceName, pairedAt: Date.now() };
  } finally {
    client.close();
  }
}

/**
 * Pairing (RPC-2, RLY-2): a single-use code from the computer becomes this device's token, from
 * the runtime that served this page (through a relay too: there the page's origin is the
 * desktop's own name, whose TLS the desktop ends).
 */
export function PairScreen({ reason, onPaired }: { reason?: string; onPaired: (pairing: DevicePairing) => void }) {
  const [code, setCode] = useState('');
  const [deviceName, setDeviceName] = useState('');
  const [error, setError] = useState<string | null>(reason ?? null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    setDeviceName(defaultDeviceName());
    // The fragment is read here and never sent anywhere: the code stays on this page.
    const linkCode = new URLSearchParams(window.location.hash.slice(1)).get('code');
    if (linkCode) setCode(linkCode);
  }, []);

  async function pair(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const name = deviceName.trim() || 'Browser';
    try {
      const pairing = await pairLocally(code.trim(), name);
      await savePairing(pairing);
      // The link's fragment (the code) leaves the address bar and the history entry.
      history.replaceState(null, '', '/');
      onPaired(pairing);
    } catch (caught) {
      if (caught instanceof RpcError) setError(caught.message);
      else setError('Could not reach the computer. Is the runtime running?');
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="pair">
      <h1>Pair this device</h1>
      <p className="muted">
        Start the runtime on your computer and enter the code it printed, or open its pairing link.
      </p>
      <form onSubmit={pair}>
        <label htmlFor="pair-code">Pairing code</label>
        <input
          id="pair-code"
          autoComplete="one-time-code"
          autoCapitalize="characters"
          value={code}
          onChange={(e) => setCode(e.target.value)}
          required
        />
        <label htmlFor="device-name">Name of this device</label>
        <input id="device-name" value={deviceName} onChange={(e) => setDeviceName(e.target.value)} maxLength={100} />
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <p>
          <button className="primary" type="submit" disabled={busy || code.trim() === ''}>
            {busy ? 'Pairing…' : 'Pair'}
          </button>
        </p>
      </form>
    </main>
  );
}
