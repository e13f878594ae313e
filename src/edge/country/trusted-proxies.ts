import ipaddr from 'ipaddr.js';

type Range = { kind: 'named'; name: string } | { kind: 'cidr'; address: ipaddr.IPv4 | ipaddr.IPv6; bits: number };

// CDN_EDGE_TRUSTED_PROXIES names the ranges express calls loopback, linklocal and uniquelocal.
const NAMED: Record<string, string[]> = { loopback: ['loopback'], linklocal: ['linkLocal'], uniquelocal: ['uniqueLocal', 'private'] };

function parseEntry(entry: string): Range {
  if (NAMED[entry]) return { kind: 'named', name: entry };
  if (entry.includes('/')) {
    const [address, bits] = ipaddr.parseCIDR(entry);
    return { kind: 'cidr', address, bits };
  }
  const address = ipaddr.parse(entry);
  return { kind: 'cidr', address, bits: address.kind() === 'ipv4' ? 32 : 128 };
}

function normalized(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
}

/** Whether an address belongs to the upstream proxies of CDN_EDGE_TRUSTED_PROXIES (validated at start by loadConfig). */
export function trustedProxyMatcher(value: string): (address: string) => boolean {
  const ranges = value.split(/[\s,]+/).filter(Boolean).map(parseEntry);
  if (ranges.length === 0) return () => false;
  return (text) => {
    if (!ipaddr.isValid(text)) return false;
    const address = normalized(ipaddr.parse(text));
    return ranges.some((range) =>
      range.kind === 'named' ? NAMED[range.name].includes(address.range()) : range.address.kind() === address.kind() && address.match(range.address as never, range.bits),
    );
  };
}
