import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** An IP address in its one canonical spelling (IPv6 compressed, lower case); anything else as it is. */
export function canonicalAddress(text: string): string {
  return isIP(text) ? ipaddr.parse(text).toString() : text;
}

/** A hostname or address as the API compares it: an address canonical, a hostname in lower case. */
export function canonicalHost(text: string): string {
  const bare = text.replace(/^\[(.*)\]$/, '$1');
  return isIP(bare) ? canonicalAddress(bare) : bare.toLowerCase();
}

function sortKey(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

// By code units, not by locale: the order only has to be the same on both sides of a diff, and
// localeCompare costs more than the rest of planning a domain.
function bySortKey(a: unknown, b: unknown): number {
  const left = sortKey(a);
  const right = sortKey(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * A value whose lists carry no order sorted, recursively: every list of plain values
 * (signatures, methods, countries, header and cookie names, CIDRs are sets in this API),
 * and, inside a rule's `match`, lists of conditions too (they are ORed or ANDed, never ordered).
 */
export function withSortedSets(value: unknown, inMatch = false): unknown {
  if (Array.isArray(value)) {
    const items = value.map((item) => withSortedSets(item, inMatch));
    const plain = items.every((item) => item === null || typeof item !== 'object');
    return plain || inMatch ? [...items].sort(bySortKey) : items;
  }
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, withSortedSets(inner, inMatch || key === 'match')]));
}
