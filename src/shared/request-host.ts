// The host of a request, from a Host header or an absolute-form target's authority
// (RFC 9110 §7.2, RFC 9112 §3.2): validated and normalised once, at the door.
import { isIPv6 } from 'node:net';

// A host name the edge can serve: DNS labels of letters, digits, `-` and `_`, separated by single
// dots (an IPv4 address is one of these). Anything else a reg-name allows (percent-escapes,
// sub-delims) names no site here, and reflected by an origin it is an injection.
const NAME = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/;
const PORT = /^\d{0,5}$/;
const MAX_NAME = 253;
const MAX_PORT = 65535;

/**
 * The normalised host of an authority (`host[:port]`): lower case, without the port and
 * a trailing dot; an IPv6 literal keeps its brackets. Undefined when it is not a valid
 * authority: a reg-name other than dot-separated labels, a port that is not digits
 * (or above 65535), userinfo, or more than 253 characters.
 */
export function normaliseHost(authority: string): string | undefined {
  if (authority.charCodeAt(0) === 91 /* [ */) return ipLiteral(authority);
  const colon = authority.indexOf(':');
  const name = colon === -1 ? authority : authority.slice(0, colon);
  if (colon !== -1 && !validPort(authority.slice(colon + 1))) return undefined;
  let host = name.toLowerCase();
  if (host.endsWith('.')) host = host.slice(0, -1);
  return host.length <= MAX_NAME && NAME.test(host) ? host : undefined;
}

function ipLiteral(authority: string): string | undefined {
  const close = authority.indexOf(']');
  if (close === -1) return undefined;
  const rest = authority.slice(close + 1);
  if (rest !== '' && (rest.charCodeAt(0) !== 58 /* : */ || !validPort(rest.slice(1)))) return undefined;
  const address = authority.slice(1, close);
  return isIPv6(address) ? `[${address.toLowerCase()}]` : undefined;
}

function validPort(port: string): boolean {
  return PORT.test(port) && (port === '' || Number(port) <= MAX_PORT);
}
