'use client';
import { useEffect, useState, type FormEvent } from 'react';
import { savePairing, type DevicePairing } from '../lib/client/appDb';
import { rpcUrlFor } from '../lib/client/connection';
import { pairThroughRelay, RelayPairingError } from '../lib/client/relay/pairThroughRelay';
import { servedByRelay } from '../lib/client/relay/servedByRelay';
import { parsePairingFragment } from '../lib/client/relay/relayPairingLink';
import { RpcClient, RpcError, type WebSocketLike } from '../lib/client/rpcClient';
import type { RelayPairingLink } from '../lib/relay/relayWire';

function defaultDeviceName(): string {
  const ua = navigator.userAgent;
  if (/iPhone|Android.+Mobile/.test(ua)) return 'Phone';
  if (/iPad|Android/.test(ua)) return 'Tablet';
  return 'Browser';
}

/** Where this screen pairs: the runtime that served the page, or a desktop through the relay that did (RLY-2). */
type PairingRoute = { kind: 'local' } | { kind: 'relay'; link: RelayPairingLink } | { kind: 'relayWithoutLink' };

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

/** Pairing (RPC-2, RLY-2): a single-use code from the computer becomes this device's token, or its key through a relay. */
export function PairScreen({ reason, onPaired }: { reason?: string; onPaired: (pairing: DevicePairing) => void }) {
  const [code, setCode] = useState('');
  const [deviceName, setDeviceName] = useState('');
  const [error, setError] = useState<string | null>(reason ?? null);
  const [busy, setBusy] = useState(false);
  const [route, setRoute] = useState<PairingRoute>({ kind: 'local' });

  useEffect(() => {
    setDeviceName(defaultDeviceName());
    // The fragment is read here and never sent anywhere: the code and the desktop's key stay on this page.
    const fragment = parsePairingFragment(window.location.hash);
    if (fragment.kind === 'relay') {
      setRoute({ kind: 'relay', link: fragment.link });
      setCode(fragment.link.code);
      return;
    }
    if (fragment.kind === 'invalid') setError(fragment.message);
    if (fragment.kind === 'local' && fragment.code) {
      // The runtime's own link: this page came from the runtime, nothing to probe.
      setCode(fragment.code);
      return;
    }
    let cancelled = false;
    void servedByRelay(window.location).then((relay) => {
      if (relay && !cancelled) setRoute({ kind: 'relayWithoutLink' });
    });
    return () => {
      cancelled = true;
    };
  }, []);

  async function pair(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const name = deviceName.trim() || 'Browser';
    try {
      const pairing = route.kind === 'relay' ? await pairThroughRelay({ ...route.link, code: code.trim() }, name, window.location) : await pairLocally(code.trim(), name);
      await savePairing(pairing);
      // The link's fragment (code, desktop key) leaves the address bar and the history entry.
      history.replaceState(null, '', '/');
      onPaired(pairing);
    } catch (caught) {
      if (caught instanceof RelayPairingError || caught instanceof RpcError) setError(caught.message);
      else setError(route.kind === 'relay' ? 'Could not reach the relay. Check your connection and try again.' : 'Could not reach the computer. Is the runtime running?');
    } finally {
      setBusy(false);
    }
  }

  if (route.kind === 'relayWithoutLink') {
    return (
      <main className="pair" data-pairing="relay-without-link">
        <h1>Pair this device</h1>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <p>This page is served by a relay. To pair, open the pairing link your desktop shows, or scan its QR code with this device&apos;s camera.</p>
        <p className="muted">The link carries your desktop&apos;s key along with the code, so a code typed by hand is not enough here. Start the runtime with --relay to get one.</p>
      </main>
    );
  }

  return (
    <main className="pair" data-pairing={route.kind}>
      <h1>Pair this device</h1>
      {route.kind === 'relay' ? (
        <p className="muted">
          Pairing with your desktop through this relay. The connection is encrypted end to end: the relay passes it on without reading it. Check the code matches the one your desktop shows.
        </p>
      ) : (
        <p className="muted">Start the runtime on your computer and enter the code it printed, or open its pairing link.</p>
      )}
      <form onSubmit={pair}>
        <label htmlFor="pair-code">Pairing code</label>
        <input id="pair-code" autoComplete="one-time-code" autoCapitalize="characters" value={code} onChange={(e) => setCode(e.target.value)} required />
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
