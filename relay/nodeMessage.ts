import type { Msg } from '@nats-io/transport-node';
import { decodeLinkFrame, LINK_FRAME, type LinkFrame } from '../lib/relay/relayWire';
import { readRoute, type ReceivedRoute } from './natsWire';

/** A message for a passthrough connection on this node: its connection id, and the control frame when it is one. */
export function parseNodeMessage(
  msg: Msg,
): { route: ReceivedRoute; connectionId: string; frame: LinkFrame | null } | null {
  const route = readRoute(msg);
  if (!route) return null;
  if (route.kind === 'part') return { route, connectionId: route.connectionId!, frame: null };
  try {
    const frame = decodeLinkFrame(msg.data);
    return frame.type === LINK_FRAME.data || frame.type === LINK_FRAME.stream
      ? null
      : { route, connectionId: frame.connectionId, frame };
  } catch {
    return null;
  }
}
