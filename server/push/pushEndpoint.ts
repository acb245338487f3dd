import https from 'node:https';
import { invalidParams } from '../runtime/errors';
import { refusedRangeOf } from '../runtime/web/destinationRange';
import { guardedLookup, literalAddress } from '../runtime/web/guardedLookup';

/**
 * A push endpoint is where the runtime will POST on its own, later, for a paired device: like a
 * fetched page it may only be a public HTTPS address (SEC-5, PUSH-1), or a device could make the
 * runtime send requests to its own computer or network. `--allow-private-fetch` lifts it (tests,
 * a push service on the LAN).
 */
export function checkPushEndpoint(endpoint: string, allowPrivate: boolean): void {
  const url = new URL(endpoint);
  if (url.protocol !== 'https:')
    throw invalidParams('A push endpoint must be an https address.', { reason: 'blocked_address', endpoint });
  if (allowPrivate) return;
  const host = url.hostname.toLowerCase();
  const literal = literalAddress(url);
  const range = literal
    ? refusedRangeOf(literal)
    : host === 'localhost' || host.endsWith('.localhost')
      ? 'loopback'
      : null;
  if (range) {
    throw invalidParams(
      `Refused push endpoint ${url.host}: it is a ${range} address, on this computer or its network. Push services are public.`,
      {
        reason: 'blocked_address',
        range,
      },
    );
  }
}

/** The agent pushes go through: every address a name resolves to is checked as it connects (SEC-5). */
export function pushAgent(allowPrivate: boolean): https.Agent | undefined {
  return allowPrivate
    ? undefined
    : new https.Agent({ keepAlive: true, lookup: guardedLookup(undefined, refusedRangeOf, null) });
}
