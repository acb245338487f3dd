'use client';
import { useEffect, useRef, useState } from 'react';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { MethodResult } from '../../lib/protocol/methods';

type PairingCode = MethodResult<'pair.create'>;

function countdown(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** DEV-1: a new single-use code for another device, as a QR code to scan and as text, counting down to its expiry. */
export function PairAnotherDevice({ client }: { client: RpcClient | null }) {
  const [code, setCode] = useState<PairingCode | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const [error, setError] = useState<string | null>(null);
  /** The device that used the code shown here (DEV-1): the code is spent, the screen says who came in. */
  const [usedBy, setUsedBy] = useState<string | null>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const expired = code !== null && code.expiresAt <= now;
  const shownExpiry = code?.expiresAt ?? null;

  useEffect(() => {
    if (!client || shownExpiry === null) return;
    return client.onNotification('devices.changed', (change) => {
      if (change.change === 'paired' && change.codeExpiresAt === shownExpiry) setUsedBy(change.name);
    });
  }, [client, shownExpiry]);
  /** RLY-2: a desktop linked to a relay offers the same code through it, for a phone on any network; shown first. */
  const [viaRelay, setViaRelay] = useState(true);
  const shownUrl = code ? (viaRelay && code.relayUrl ? code.relayUrl : code.url) : '';

  useEffect(() => {
    if (!code || expired) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [code, expired]);

  useEffect(() => {
    const target = canvas.current;
    if (!code || !target) return;
    // Dark on light whatever the theme: cameras read that best.
    void import('qrcode').then((QRCode) =>
      QRCode.toCanvas(target, shownUrl, {
        width: 232,
        margin: 2,
        errorCorrectionLevel: 'M',
        color: { dark: '#000000', light: '#ffffff' },
      }),
    );
  }, [code, shownUrl]);

  async function createCode() {
    if (!client) return;
    setError(null);
    try {
      const created = await client.call('pair.create');
      setNow(Date.now());
      setUsedBy(null);
      setCode(created);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : 'Could not make a code.');
    }
  }

  return (
    <section className="card devices-section" aria-labelledby="pair-another">
      <h2 id="pair-another">Pair another device</h2>
      {!code && (
        <p className="muted">
          Show a code here and scan it with the other device&apos;s camera, or type the code into its pair screen.
        </p>
      )}
      {usedBy !== null && (
        <p role="status" className="pairing-used">
          <strong>{usedBy}</strong> paired with this code. It cannot be used again.
        </p>
      )}
      {code && !expired && usedBy === null && (
        <div className="pairing-code">
          {code.relayUrl && (
            <div className="pairing-route" role="group" aria-label="How the other device reaches this computer">
              <button type="button" aria-pressed={viaRelay} onClick={() => setViaRelay(true)}>
                Through the relay
              </button>
              <button type="button" aria-pressed={!viaRelay} onClick={() => setViaRelay(false)}>
                This computer&apos;s address
              </button>
            </div>
          )}
          <canvas ref={canvas} className="pairing-qr" aria-label="Pairing QR code" role="img" />
          <p className="mono pairing-text" aria-label="Pairing code">
            {code.code}
          </p>
          <p className="muted" role="timer">
            Works once. Expires in {countdown(code.expiresAt - now)}
          </p>
          <p className="muted ellipsis" data-testid="pairing-link">
            {shownUrl}
          </p>
        </div>
      )}
      {expired && usedBy === null && <p className="muted">That code expired. Make a new one.</p>}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <button
        className={code && !expired && usedBy === null ? undefined : 'primary'}
        onClick={createCode}
        disabled={!client}
      >
        {code ? 'New code' : 'Show a pairing code'}
      </button>
    </section>
  );
}
