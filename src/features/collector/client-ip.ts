import { createHmac } from 'node:crypto';
import { canonicalIp } from '../../shared/ip-address.js';

/**
 * How client IPs are stored: in full (CDN_STORE_FULL_CLIENT_IP), or as a keyed hash. `recent`
 * remembers the hashes of recent addresses (visitors come back within a batch and across
 * batches), so the collector does not pay an HMAC for each of their events.
 */
export type ClientIpPolicy = { storeFull: boolean; key: Buffer; recent?: Map<string, string> };

const RECENT_ADDRESSES = 10000;

// One text per address, so 2001:DB8::1 and 2001:db8:0::1 (or ::ffff:192.0.2.1 and
// 192.0.2.1) are stored and hashed alike; text that is not an address is kept as sent.
function canonicalAddress(ip: string): string {
  return canonicalIp(ip) ?? ip;
}

function keyedHash(ip: string, policy: ClientIpPolicy): string {
  const known = policy.recent?.get(ip);
  if (known !== undefined) return known;
  const hash = createHmac('sha256', policy.key).update(canonicalAddress(ip)).digest('hex');
  if (policy.recent) {
    if (policy.recent.size >= RECENT_ADDRESSES) policy.recent.clear();
    policy.recent.set(ip, hash);
  }
  return hash;
}

/**
 * What is stored of a client IP: the address itself when the policy keeps full IPs,
 * else the hex HMAC-SHA-256 of its canonical text under the installation's key. A
 * plain hash would give every IPv4 address back to anyone who tries all 2^32.
 */
export function storedClientIp(ip: string | null | undefined, policy: ClientIpPolicy): string | null {
  if (!ip) return null;
  return policy.storeFull ? canonicalAddress(ip) : keyedHash(ip, policy);
}
