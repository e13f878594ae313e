import ipaddr from 'ipaddr.js';

// The names express's `trust proxy` understands besides addresses and CIDRs.
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrRange(entry: string): boolean {
  if (NAMED_RANGES.has(entry) || ipaddr.isValid(entry)) return true;
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}

/**
 * The proxies whose X-Forwarded-For may be believed, from CDN_API_TRUSTED_PROXIES or CDN_EDGE_TRUSTED_PROXIES
 * (comma or space separated); none when empty. Throws naming a bad entry.
 */
export function trustedProxies(value: string, variable = 'CDN_API_TRUSTED_PROXIES'): string[] | false {
  const entries = value.split(/[\s,]+/).filter(Boolean);
  const bad = entries.find((entry) => !isAddressOrRange(entry));
  if (bad !== undefined) throw new Error(`${variable}: ${JSON.stringify(bad)} is not an address, a CIDR or one of ${[...NAMED_RANGES].join(', ')}`);
  return entries.length > 0 ? entries : false;
}
