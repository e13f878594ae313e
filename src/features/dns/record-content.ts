import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';
import { normalizeHostname } from '../../shared/hostnames.js';

/** Checks one record's content for its type and returns its canonical form, or a reason it is invalid. */
export type ContentCheck = { ok: true; content: string } | { ok: false; reason: string };

const ok = (content: string): ContentCheck => ({ ok: true, content });
const bad = (reason: string): ContentCheck => ({ ok: false, reason });

function uint(value: string | undefined, max: number): number | undefined {
  if (value === undefined || !/^\d{1,5}$/.test(value)) return undefined;
  const number = Number(value);
  return number <= max ? number : undefined;
}

function hostnameTarget(value: string, what: string): ContentCheck {
  const host = normalizeHostname(value);
  return host ? ok(host) : bad(`${what} must be a hostname, got ${JSON.stringify(value)}`);
}

function checkA(content: string): ContentCheck {
  return isIPv4(content) ? ok(content) : bad(`an A record needs an IPv4 address, got ${JSON.stringify(content)}`);
}

// RFC 5952 text (lower case, the longest zero run compressed; IPv4-mapped in dotted form), so
// two spellings of one address are one record to the duplicate rule and its unique index.
function canonicalIpv6(address: string): string {
  const parsed = ipaddr.IPv6.parse(address);
  return parsed.isIPv4MappedAddress() ? `::ffff:${parsed.toIPv4Address().toString()}` : parsed.toRFC5952String();
}

function checkAAAA(content: string): ContentCheck {
  // A zone index (fe80::1%eth0) names a local interface, never a published address.
  if (!isIPv6(content) || content.includes('%')) return bad(`an AAAA record needs an IPv6 address, got ${JSON.stringify(content)}`);
  return ok(canonicalIpv6(content));
}

function checkMX(content: string): ContentCheck {
  const [priority, host, ...rest] = content.split(/\s+/);
  if (uint(priority, 65535) === undefined || !host || rest.length) return bad('an MX record is "<priority 0-65535> <mail server hostname>"');
  const target = hostnameTarget(host, 'the mail server');
  return target.ok ? ok(`${Number(priority)} ${target.content}`) : target;
}

function checkSRV(content: string): ContentCheck {
  const [priority, weight, port, host, ...rest] = content.split(/\s+/);
  const numbers = [uint(priority, 65535), uint(weight, 65535), uint(port, 65535)];
  if (numbers.includes(undefined) || !host || rest.length) return bad('an SRV record is "<priority> <weight> <port> <target hostname>" with numbers 0-65535');
  if (host === '.') return ok(`${numbers.join(' ')} .`);
  const target = hostnameTarget(host, 'the SRV target');
  return target.ok ? ok(`${numbers.join(' ')} ${target.content}`) : target;
}

const CAA_TAGS = new Set(['issue', 'issuewild', 'iodef', 'issuemail', 'issuevmc']);

function checkCAA(content: string): ContentCheck {
  const match = /^(\d{1,3})\s+([A-Za-z0-9]+)\s+"([^"]*)"$/.exec(content);
  if (!match || Number(match[1]) > 255) return bad('a CAA record is \'<flags 0-255> <tag> "<value>"\', e.g. 0 issue "letsencrypt.org"');
  const tag = match[2].toLowerCase();
  if (!CAA_TAGS.has(tag)) return bad(`unknown CAA tag ${JSON.stringify(match[2])} (use ${[...CAA_TAGS].join(', ')})`);
  return ok(`${Number(match[1])} ${tag} "${match[3]}"`);
}

function checkTXT(content: string): ContentCheck {
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(content)) return bad('a TXT record cannot contain control characters');
  return content.length <= 2048 ? ok(content) : bad('a TXT record is at most 2048 characters');
}

const CHECKS: Record<string, (content: string) => ContentCheck> = {
  A: checkA,
  AAAA: checkAAAA,
  CNAME: (content) => hostnameTarget(content, 'a CNAME target'),
  NS: (content) => hostnameTarget(content, 'an NS target'),
  PTR: (content) => hostnameTarget(content, 'a PTR target'),
  MX: checkMX,
  SRV: checkSRV,
  CAA: checkCAA,
  TXT: checkTXT,
};

export const RECORD_TYPES = Object.keys(CHECKS);
export const PROXIABLE_TYPES = new Set(['A', 'AAAA', 'CNAME']);

/** Validates and canonicalises `content` for a record of `type`. */
export function checkRecordContent(type: string, content: string): ContentCheck {
  const check = CHECKS[type];
  if (!check) return bad(`unsupported record type ${type}`);
  return type === 'TXT' ? check(content) : check(content.trim());
}
