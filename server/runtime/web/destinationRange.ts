import ipaddr from 'ipaddr.js';

/**
 * Which special range an IP address is in, for `web.fetchPage`'s refusal (SEC-5), or null for a
 * public unicast address. Everything but public unicast is refused: loopback, private (also
 * unique-local fc00::/7 and carrier-grade NAT 100.64/10), link-local (cloud metadata),
 * unspecified (0.0.0.0 reaches this machine), multicast, broadcast, reserved and documentation
 * ranges. IPv6 forms that carry an IPv4 address (mapped ::ffff:a.b.c.d, translated, the old
 * compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by that IPv4 address, so
 * `::ffff:127.0.0.1` is loopback; Teredo and local-use NAT64 (64:ff9b:1::/48), whose targets
 * cannot be told from the address, are refused whole, and so is IPv6 outside 2000::/3.
 *
 * NOTE: classification by ipaddr.js, whose range tables follow the IANA special-purpose
 * registries; hand-written prefix checks are where such filters usually leak.
 */
export function refusedRangeOf(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'invalid';
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return refusedIpv4Range(parsed as ipaddr.IPv4);
  const ipv6 = parsed as ipaddr.IPv6;
  const range = ipv6.range();
  const embedded = embeddedIpv4(ipv6, range);
  if (embedded) {
    const inner = refusedIpv4Range(embedded);
    if (inner) return `${inner} in ${address}`;
    // The compatible form is deprecated and never routed on the internet, even to a public IPv4.
    return range === 'unicast' ? 'reserved' : null;
  }
  if (range !== 'unicast') return range;
  // Only 2000::/3 is global unicast; ipaddr.js calls the unassigned rest (::2, 4000::…) unicast too.
  return (ipv6.parts[0]! & 0xe000) === 0x2000 ? null : 'reserved';
}

function refusedIpv4Range(address: ipaddr.IPv4): string | null {
  const range = address.range();
  return range === 'unicast' ? null : range;
}

/** The IPv4 address an IPv6 form carries and is delivered to, or null for a native IPv6 address. */
function embeddedIpv4(address: ipaddr.IPv6, range: string): ipaddr.IPv4 | null {
  const words = address.parts;
  const fromWords = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  const last32 = fromWords(words[6]!, words[7]!);
  switch (range) {
    case 'unicast': // the deprecated compatible ::a.b.c.d as URL parsing prints it (::7f00:1); ipaddr.js files only the dotted spelling as ipv4Mapped
      return words.slice(0, 6).every((word) => word === 0) ? last32 : null;
    case 'ipv4Mapped': // ::ffff:0:0/96, and (as ipaddr.js parses the dotted spelling) the deprecated compatible ::/96
    case 'rfc6145': // ::ffff:0:0:0/96
      return last32;
    case 'rfc6052': // only the well-known 64:ff9b::/96 says where it goes; local-use 64:ff9b:1::/48 stays refused
      return words.slice(0, 6).every((word, i) => word === [0x64, 0xff9b, 0, 0, 0, 0][i]) ? last32 : null;
    case '6to4': // 2002:AABB:CCDD::/48 carries AA.BB.CC.DD
      return fromWords(words[1]!, words[2]!);
    default:
      return null;
  }
}
