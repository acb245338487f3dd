import { RELAY_DEVICE_PATH, RelayPairingLinkSchema, type RelayPairingLink } from '../../relay/relayWire';

/**
 * What a pairing link's fragment holds (RLY-2): a relay link has the desktop's id and key next to
 * the code; a local link (`/pair#code=…`) only the code. The fragment is read here and never sent.
 */
export type PairingFragment = { kind: 'relay'; link: RelayPairingLink } | { kind: 'local'; code: string | null } | { kind: 'invalid'; message: string };

export function parsePairingFragment(hash: string): PairingFragment {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const code = params.get('code');
  if (!params.has('desktop') && !params.has('key')) return { kind: 'local', code };
  const link = RelayPairingLinkSchema.safeParse({ code: code ?? '', desktop: params.get('desktop') ?? '', key: params.get('key') ?? '' });
  if (!link.success) return { kind: 'invalid', message: 'This pairing link is damaged: open it again from your desktop, or scan its QR code again.' };
  return { kind: 'relay', link: link.data };
}

/** The relay's device endpoint on the origin that served the app: `wss://HOST/relay/device?desktop=ID`. */
export function relayDeviceUrl(location: { protocol: string; host: string }, desktopId: string): string {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}${RELAY_DEVICE_PATH}?${new URLSearchParams({ desktop: desktopId }).toString()}`;
}
