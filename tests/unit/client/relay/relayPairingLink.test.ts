import { describe, expect, it } from 'vitest';
import { parsePairingFragment, relayDeviceUrl } from '../../../../lib/client/relay/relayPairingLink';
import { relayPairingUrl } from '../../../../lib/relay/relayWire';

const desktop = 'abcdefghijklmnopqrstuvwxyz234567';
const key = 'A'.repeat(43);

describe('RLY-2 the pairing link’s fragment', () => {
  it('RLY-2 a relay link (code, desktop, key) is a relay pairing; the local link has the code only', () => {
    const link = new URL(relayPairingUrl('https://relay.example', { code: 'GOOD1CODE', desktop, key }));
    expect(link.pathname).toBe('/pair');
    expect(parsePairingFragment(link.hash)).toEqual({ kind: 'relay', link: { code: 'GOOD1CODE', desktop, key } });
    expect(parsePairingFragment('#code=GOOD1CODE')).toEqual({ kind: 'local', code: 'GOOD1CODE' });
    expect(parsePairingFragment('')).toEqual({ kind: 'local', code: null });
  });

  it('RLY-2 a damaged relay link is refused in words, never half used', () => {
    expect(parsePairingFragment(`#code=X&desktop=${desktop}`)).toMatchObject({ kind: 'invalid' });
    expect(parsePairingFragment(`#code=X&desktop=NOT-AN-ID&key=${key}`)).toMatchObject({ kind: 'invalid' });
    expect(parsePairingFragment(`#desktop=${desktop}&key=${key}`)).toMatchObject({ kind: 'invalid' });
  });

  it('RLY-2 the device socket is on the origin that served the app, with the desktop id only', () => {
    expect(relayDeviceUrl({ protocol: 'https:', host: 'relay.example' }, desktop)).toBe(`wss://relay.example/relay/device?desktop=${desktop}`);
    expect(relayDeviceUrl({ protocol: 'http:', host: 'relay.localhost:8123' }, desktop)).toBe(`ws://relay.localhost:8123/relay/device?desktop=${desktop}`);
  });
});
