import dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import net from 'node:net';
import type { RuntimeError } from '../errors';
import { webFetchError } from './webFetchError';

/** Which range makes an address refused, or null to connect (see destinationRange.ts). */
export type DestinationRange = (address: string) => string | null;

const ALLOW_PRIVATE_FETCH_FLAG = '--allow-private-fetch';

export function blockedAddressError(
  host: string,
  address: string,
  range: string,
  redirectedFrom: string | null,
): RuntimeError {
  const named = host === address ? address : `${host} (${address})`;
  const where = redirectedFrom ? ` (a redirect from ${redirectedFrom})` : '';
  return webFetchError(
    'blocked_address',
    `Refused to fetch ${named}${where}: it is a ${range} address, on this computer or its network. The reader fetches only public addresses; start the runtime with ${ALLOW_PRIVATE_FETCH_FLAG} to read pages from local servers.`,
    { host, address, range },
  );
}

/** The host of a URL as an IP literal (brackets of IPv6 removed), or null for a name. */
export function literalAddress(url: URL): string | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return net.isIP(host) ? host : null;
}

type AllCallback = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void;
type OneCallback = (error: NodeJS.ErrnoException | null, address: string, family: number) => void;

/**
 * Name resolution that refuses a name when any address it resolves to is refused (SEC-5). It is
 * the `lookup` of the request itself, so the addresses checked are the ones the socket connects
 * to: a name cannot resolve to a public address for a check and to loopback for the connection.
 */
export function guardedLookup(
  resolve: LookupFunction | undefined,
  rangeOf: DestinationRange,
  redirectedFrom: string | null,
): LookupFunction {
  const underlying = resolve ?? (dns.lookup as unknown as LookupFunction);
  return (hostname, options, callback) => {
    const answerAll = callback as unknown as AllCallback;
    const answerOne = callback as unknown as OneCallback;
    underlying(hostname, { ...options, all: true }, ((
      error: NodeJS.ErrnoException | null,
      found: LookupAddress[] | string,
    ) => {
      if (error) return answerOne(error, '', 0);
      const addresses: LookupAddress[] =
        typeof found === 'string' ? [{ address: found, family: net.isIP(found) }] : found;
      for (const { address } of addresses) {
        const range = rangeOf(address);
        if (range)
          return answerOne(
            blockedAddressError(hostname, address, range, redirectedFrom) as unknown as NodeJS.ErrnoException,
            '',
            0,
          );
      }
      if (addresses.length === 0)
        return answerOne(Object.assign(new Error(`No address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      if (options.all) return answerAll(null, addresses);
      answerOne(null, addresses[0]!.address, addresses[0]!.family);
    }) as unknown as Parameters<LookupFunction>[2]);
  };
}
