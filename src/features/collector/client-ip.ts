import { createHmac } from 'node:crypto';
import ipaddr from 'ipaddr.js';

/** How client IPs are stored: in full (CDN_STORE_FULL_CLIENT_IP), or as a keyed hash. */
export type ClientIpPolicy = { storeFull: boolean; key: Buffer };

// One text per address, so 2001:DB8::1 and 2001:db8:0::1 (or ::ffff:192.0.2.1 and
// 192.0.2.1) are stored and hashed alike; text that is not an address is kept as sent.
function canonicalAddress(ip: string): string {
  return ipaddr.isValid(ip) ? ipaddr.process(ip).toString() : ip;
}

/**
 * What is stored of a client IP: the address itself when the policy keeps full IPs,
 * else the hex HMAC-SHA-256 of its canonical text under the installation's key. A
 * plain hash would give every IPv4 address back to anyone who tries all 2^32.
 */
export function storedClientIp(ip: string | null | undefined, policy: ClientIpPolicy): string | null {
  if (!ip) return null;
  const address = canonicalAddress(ip);
  return policy.storeFull ? address : createHmac('sha256', policy.key).update(address).digest('hex');
}
