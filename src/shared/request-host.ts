// The host of a request, from a Host header or an absolute-form target's authority
// (RFC 9110 §7.2, RFC 9112 §3.2): validated and normalised once, at the door.
import { isIPv6 } from 'node:net';

// A host name the edge can serve: DNS labels of letters, digits, `-` and `_`, separated by single
// dots (an IPv4 address is one of these), that is /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/ once lower-cased.
// Anything else a reg-name allows (percent-escapes, sub-delims) names no site here, and reflected by
// an origin it is an injection. Read a character at a time against this table, not by that pattern
// after lower-casing: every request's Host is, and that cost ~1,300 instructions a Host, this ~700.
const LABEL_CHAR = 1;
const UPPER_CASE = 2;
const DOT = 3;
const NAME_CHARS = new Uint8Array(128);
for (const char of 'abcdefghijklmnopqrstuvwxyz0123456789-_') NAME_CHARS[char.charCodeAt(0)] = LABEL_CHAR;
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') NAME_CHARS[char.charCodeAt(0)] = UPPER_CASE;
NAME_CHARS['.'.charCodeAt(0)] = DOT;
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
  const host = name.endsWith('.') ? name.slice(0, -1) : name;
  if (host.length > MAX_NAME) return undefined;
  const kind = nameKind(host);
  return kind === LABEL_CHAR ? host : kind === UPPER_CASE ? host.toLowerCase() : undefined;
}

// LABEL_CHAR for a host name in lower case, UPPER_CASE for one with capitals, 0 for no host name
// (empty, a character outside NAME_CHARS, a dot first, last or after another).
function nameKind(name: string): number {
  let previous = DOT;
  let kind = LABEL_CHAR;
  for (let index = 0; index < name.length; index++) {
    const code = name.charCodeAt(index);
    const char = code < 128 ? NAME_CHARS[code] : 0;
    if (char === 0 || (char === DOT && previous === DOT)) return 0;
    if (char === UPPER_CASE) kind = UPPER_CASE;
    previous = char;
  }
  return previous === DOT ? 0 : kind;
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
