import ipaddr from 'ipaddr.js';

/** A parsed client address: IPv4 (and IPv4-mapped IPv6) as one 32-bit number, IPv6 as four 32-bit words. */
export type ParsedIp = { v6: false; value: number } | { v6: true; words: readonly [number, number, number, number] };

// Dotted quad to a 32-bit number without allocating; undefined when it is not one (leading zeros refused).
function ipv4Value(text: string, start = 0): number | undefined {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = start; i < text.length; i++) {
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

function hexDigit(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  if (code >= 65 && code <= 70) return code - 55;
  return -1;
}

// The 16-bit groups of one side of a "::" (with an optional trailing dotted quad), or undefined.
function groupsOf(text: string, allowIpv4Tail: boolean): number[] | undefined {
  if (text === '') return [];
  const groups: number[] = [];
  let value = 0;
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 58) {
      if (digits === 0) return undefined;
      groups.push(value);
      value = 0;
      digits = 0;
      continue;
    }
    if (code === 46) {
      const v4 = allowIpv4Tail && groups.length <= 6 ? ipv4Value(text, i - digits) : undefined;
      if (v4 === undefined) return undefined;
      groups.push(v4 >>> 16, v4 & 0xffff);
      return groups;
    }
    const digit = hexDigit(code);
    if (digit === -1 || ++digits > 4) return undefined;
    value = value * 16 + digit;
  }
  if (digits === 0) return undefined;
  groups.push(value);
  return groups;
}

function ipv6Words(text: string): [number, number, number, number] | undefined {
  const address = text.includes('%') ? text.slice(0, text.indexOf('%')) : text;
  const split = address.indexOf('::');
  let groups: number[] | undefined;
  if (split === -1) {
    groups = groupsOf(address, true);
    if (!groups || groups.length !== 8) return undefined;
  } else {
    const left = groupsOf(address.slice(0, split), false);
    const right = groupsOf(address.slice(split + 2), true);
    if (!left || !right || left.length + right.length > 7 || address.indexOf('::', split + 1) !== -1) return undefined;
    groups = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  }
  return [(groups[0] * 65536 + groups[1]) >>> 0, (groups[2] * 65536 + groups[3]) >>> 0, (groups[4] * 65536 + groups[5]) >>> 0, (groups[6] * 65536 + groups[7]) >>> 0];
}

/** Parses an address without allocating much (this runs once per request), or undefined when it is not one. */
export function parseIp(text: string): ParsedIp | undefined {
  const v4 = ipv4Value(text);
  if (v4 !== undefined) return { v6: false, value: v4 };
  if (!text.includes(':')) return undefined;
  const words = ipv6Words(text);
  if (!words) return undefined;
  if (words[0] === 0 && words[1] === 0 && words[2] === 0xffff) return { v6: false, value: words[3] };
  return { v6: true, words };
}

/**
 * The canonical text of a CIDR (a bare address gets /32 or /128; an IPv4-mapped
 * IPv6 network becomes its IPv4 network), or undefined when invalid.
 */
export function normalizeCidr(text: string): string | undefined {
  const trimmed = text.trim();
  try {
    let [address, prefix] = trimmed.includes('/') ? ipaddr.parseCIDR(trimmed) : [ipaddr.parse(trimmed), undefined];
    let bits = prefix ?? (address.kind() === 'ipv4' ? 32 : 128);
    if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
      address = (address as ipaddr.IPv6).toIPv4Address();
      bits -= 96;
    }
    const network = address.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(`${address}/${bits}`) : ipaddr.IPv6.networkAddressFromCIDR(`${address}/${bits}`);
    return `${network.toString()}/${bits}`;
  } catch {
    return undefined;
  }
}

type V4Range = { network: number; mask: number };
type V6Range = { network: readonly number[]; mask: readonly number[] };

function maskWord(bits: number): number {
  if (bits <= 0) return 0;
  if (bits >= 32) return 0xffffffff;
  return (0xffffffff << (32 - bits)) >>> 0;
}

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
      const mask = [0, 1, 2, 3].map((word) => maskWord(bits - 32 * word));
      v6.push({ network: parsed.words.map((word, index) => (word & mask[index]) >>> 0), mask });
    } else {
      const mask = maskWord(bits);
      v4.push({ network: (parsed.value & mask) >>> 0, mask });
    }
  }
  return (ip) => {
    if (!ip.v6) {
      for (const range of v4) if (((ip.value & range.mask) >>> 0) === range.network) return true;
      return false;
    }
    const words = ip.words;
    for (const range of v6) {
      if (
        ((words[0] & range.mask[0]) >>> 0) === range.network[0] &&
        ((words[1] & range.mask[1]) >>> 0) === range.network[1] &&
        ((words[2] & range.mask[2]) >>> 0) === range.network[2] &&
        ((words[3] & range.mask[3]) >>> 0) === range.network[3]
      ) {
        return true;
      }
    }
    return false;
  };
}
