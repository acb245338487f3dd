import { describe, expect, it } from 'vitest';
import { refusedRangeOf } from '../../../../server/runtime/web/destinationRange';

// SEC-5: which destination addresses web.fetchPage refuses by default. Pure classification: no
// address here is ever connected to (the fetch tests cover the loopback forms with real sockets).

describe('SEC-5 the destination ranges web.fetchPage refuses', () => {
  it('SEC-5 refuses every special IPv4 range and names it', () => {
    expect(
      Object.fromEntries(
        [
          '127.0.0.1',
          '127.255.0.9',
          '10.1.2.3',
          '172.16.0.1',
          '192.168.1.1',
          '100.64.0.1',
          '169.254.169.254',
          '0.0.0.0',
          '0.1.2.3',
          '255.255.255.255',
          '224.0.0.1',
          '192.0.2.1',
          '198.18.0.1',
          '240.0.0.1',
        ].map((address) => [address, refusedRangeOf(address)]),
      ),
    ).toEqual({
      '127.0.0.1': 'loopback',
      '127.255.0.9': 'loopback',
      '10.1.2.3': 'private',
      '172.16.0.1': 'private',
      '192.168.1.1': 'private',
      '100.64.0.1': 'carrierGradeNat',
      '169.254.169.254': 'linkLocal',
      '0.0.0.0': 'unspecified',
      '0.1.2.3': 'unspecified',
      '255.255.255.255': 'broadcast',
      '224.0.0.1': 'multicast',
      '192.0.2.1': 'reserved',
      '198.18.0.1': 'reserved',
      '240.0.0.1': 'reserved',
    });
  });

  it('SEC-5 refuses every special IPv6 range, and IPv4 ranges inside the forms that embed an IPv4 address', () => {
    const cases: Record<string, string> = {
      '::1': 'loopback',
      '::': 'unspecified',
      'fe80::1': 'linkLocal',
      'fc00::1': 'uniqueLocal',
      'fd12:3456::1': 'uniqueLocal',
      'ff02::1': 'multicast',
      '2001:db8::1': 'reserved',
      '100::1': 'discard',
      '::ffff:127.0.0.1': 'loopback in ::ffff:127.0.0.1',
      '::ffff:7f00:1': 'loopback in ::ffff:7f00:1',
      '::ffff:10.0.0.1': 'private in ::ffff:10.0.0.1',
      '::ffff:0:7f00:1': 'loopback in ::ffff:0:7f00:1',
      '::127.0.0.1': 'loopback in ::127.0.0.1',
      // The same IPv4-compatible address as URL parsing and inet_ntop-less tools print it.
      '::7f00:1': 'loopback in ::7f00:1',
      '::a9fe:a9fe': 'linkLocal in ::a9fe:a9fe',
      '::808:808': 'reserved',
      '::2': 'unspecified in ::2',
      // Outside 2000::/3 nothing is global unicast, whatever ipaddr.js calls it.
      '::1:0:0:1': 'reserved',
      '4000::1': 'reserved',
      '64:ff9b::7f00:1': 'loopback in 64:ff9b::7f00:1',
      '64:ff9b::a9fe:a9fe': 'linkLocal in 64:ff9b::a9fe:a9fe',
      '64:ff9b:1::1': 'rfc6052',
      '2002:7f00:1::1': 'loopback in 2002:7f00:1::1',
      '2002:c0a8:101::1': 'private in 2002:c0a8:101::1',
      '2001::1': 'teredo',
    };
    expect(Object.fromEntries(Object.keys(cases).map((address) => [address, refusedRangeOf(address)]))).toEqual(cases);
  });

  it('SEC-5 lets public addresses through, also when embedded in a mapped, NAT64 or 6to4 form', () => {
    for (const address of [
      '8.8.8.8',
      '93.184.216.34',
      '1.1.1.1',
      '2606:4700::1111',
      '2a00:1450:4001::200e',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
    ]) {
      expect({ address, range: refusedRangeOf(address) }).toEqual({ address, range: null });
    }
  });

  it('SEC-5 an address that is not an IP address is refused, not let through', () => {
    expect(refusedRangeOf('not-an-ip')).toBe('invalid');
    expect(refusedRangeOf('')).toBe('invalid');
  });
});
