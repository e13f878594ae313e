import { createHash } from 'node:crypto';

/** What is stored of a client IP: its SHA-256 (hex) unless full IPs are kept (CDN_STORE_FULL_CLIENT_IP). */
export function storedClientIp(ip: string | null | undefined, storeFullIp: boolean): string | null {
  if (!ip) return null;
  return storeFullIp ? ip : createHash('sha256').update(ip).digest('hex');
}
