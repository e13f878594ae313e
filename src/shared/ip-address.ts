import { isIPv4 } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * One text per IP address, or undefined for text that is not one: IPv4 in dotted
 * decimal, IPv6 compressed and lower case, an IPv4-mapped IPv6 address as its IPv4
 * (a dual-stack socket reports 192.0.2.1 as ::ffff:192.0.2.1).
 */
export function canonicalIp(text: string): string | undefined {
  // Node's isIPv4 takes only plain dotted decimal, already canonical: the common case skips the parse.
  if (isIPv4(text)) return text;
  return ipaddr.isValid(text) ? ipaddr.process(text).toString() : undefined;
}

/** The /64 network of a canonical IPv6 address, as `prefix::/64`. */
export function ipv6Network64(canonical: string): string {
  return `${ipaddr.IPv6.parse(canonical).parts.slice(0, 4).map((part) => part.toString(16)).join(':')}::/64`;
}
