import { isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

/** A parsed client address: IPv4 (and IPv4-mapped IPv6) as a 32-bit number, IPv6 as a bigint. */
export type ParsedIp = { v6: false; value: number } | { v6: true; value: bigint };

// Dotted quad to a 32-bit number without allocating; undefined when it is not one (leading zeros refused).
function ipv4Value(text: string): number | undefined {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 46) {
      if (digits === 0 || ++dots > 3) return undefined;
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
    } else if (code >= 48 && code <= 57) {
      if (digits > 0 && octet === 0) return undefined;
      octet = octet * 10 + (code - 48);
      if (++digits > 3 || octet > 255) return undefined;
    } else return undefined;
  }
  return dots === 3 && digits > 0 ? value * 256 + octet : undefined;
}

function hextets(part: string): number[] {
  if (part === '') return [];
  return part.split(':').flatMap((group) => {
    if (!group.includes('.')) return [parseInt(group, 16)];
    const v4 = ipv4Value(group) ?? 0;
    return [v4 >>> 16, v4 & 0xffff];
  });
}

function ipv6Value(text: string): bigint {
  const address = text.split('%')[0];
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const left = hextets(head);
  const right = tail === undefined ? [] : hextets(tail);
  const groups = [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
  let value = 0n;
  for (const group of groups) value = (value << 16n) | BigInt(group);
  return value;
}

const MAPPED_PREFIX = 0xffffn << 32n;
const LOW_32 = 0xffffffffn;

/** Parses an address (fast path for the per-request case), or undefined when it is not one. */
export function parseIp(text: string): ParsedIp | undefined {
  const v4 = ipv4Value(text);
  if (v4 !== undefined) return { v6: false, value: v4 };
  if (!isIPv6(text)) return undefined;
  const value = ipv6Value(text);
  if (value >> 32n === MAPPED_PREFIX >> 32n) return { v6: false, value: Number(value & LOW_32) };
  return { v6: true, value };
}

/** The canonical text of a CIDR (a bare address gets /32 or /128), or undefined when invalid. */
export function normalizeCidr(text: string): string | undefined {
  const trimmed = text.trim();
  try {
    const [address, prefix] = trimmed.includes('/') ? ipaddr.parseCIDR(trimmed) : [ipaddr.parse(trimmed), undefined];
    const bits = prefix ?? (address.kind() === 'ipv4' ? 32 : 128);
    const network = address.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(`${address}/${bits}`) : ipaddr.IPv6.networkAddressFromCIDR(`${address}/${bits}`);
    return `${network.toString()}/${bits}`;
  } catch {
    return undefined;
  }
}

type V4Range = { network: number; mask: number };
type V6Range = { network: bigint; mask: bigint };

function splitCidr(cidr: string): { parsed: ParsedIp; bits: number } {
  const [address, bits] = (normalizeCidr(cidr) ?? cidr).split('/');
  const parsed = parseIp(address);
  if (!parsed) throw new Error(`invalid CIDR ${cidr}`);
  return { parsed, bits: Number(bits) };
}

/** Compiles CIDRs into a membership test over parsed addresses. */
export function compileIpSet(cidrs: string[]): (ip: ParsedIp) => boolean {
  const v4: V4Range[] = [];
  const v6: V6Range[] = [];
  for (const cidr of cidrs) {
    const { parsed, bits } = splitCidr(cidr);
    if (parsed.v6) {
      const mask = ((1n << 128n) - 1n) ^ ((1n << BigInt(128 - bits)) - 1n);
      v6.push({ network: parsed.value & mask, mask });
    } else {
      const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
      v4.push({ network: (parsed.value & mask) >>> 0, mask });
    }
  }
  return (ip) => {
    if (!ip.v6) {
      for (const range of v4) if (((ip.value & range.mask) >>> 0) === range.network) return true;
      return false;
    }
    for (const range of v6) if ((ip.value & range.mask) === range.network) return true;
    return false;
  };
}
