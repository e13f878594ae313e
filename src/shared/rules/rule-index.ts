import { normalizeCidr, parseIp, type ParsedIp } from './ip-set.js';
import type { Match, Pattern } from './types.js';

/**
 * Where a rule is filed so that most requests never visit it: under the first
 * two characters its paths must start with (`head`), under the file extension
 * its paths must end with (`extension`), under the exact hosts it requires, or
 * under the /8 (IPv4) or /16 (IPv6) networks its `ips` lie in, or (when none
 * of these is pinned) among the rules checked for every request.
 * Every key is a necessary condition of the rule's match.
 */
export type IndexKey = { head: number } | { extension: string } | { hosts: string[] } | { networks: number[] } | 'always';

/** The first two characters of a path after its leading slash as one number (`/api` → `ap`); -1 when shorter. */
export function pathHead(path: string): number {
  return path.length < 3 ? -1 : path.charCodeAt(1) * 65536 + path.charCodeAt(2);
}

/** The extension of a path's last segment (`/a/b.min.css` → `css`), or ''. */
export function pathExtension(path: string): string {
  const dot = path.lastIndexOf('.');
  return dot === -1 || path.indexOf('/', dot) !== -1 ? '' : path.slice(dot + 1);
}

// The literal start of a case-sensitive pattern (what every matching path begins with).
function literalHead(pattern: Pattern): string | undefined {
  if (pattern.case_sensitive === false || !pattern.value.startsWith('/')) return undefined;
  if (pattern.kind === 'exact' || pattern.kind === 'prefix') return pattern.value;
  if (pattern.kind === 'wildcard') return pattern.value.split('*')[0];
  return undefined;
}

function headKey(pattern: Pattern): number | undefined {
  const literal = literalHead(pattern);
  return literal !== undefined && literal.length > 2 ? pathHead(literal) : undefined;
}

// `*.css`: one leading star, then a literal extension.
function extensionKey(pattern: Pattern): string | undefined {
  if (pattern.kind !== 'wildcard' || pattern.case_sensitive === false) return undefined;
  const match = /^\*\.([A-Za-z0-9]+)$/.exec(pattern.value);
  return match?.[1];
}

function shared<K>(keys: (K | undefined)[]): K | undefined {
  return keys.length && keys.every((key) => key !== undefined && key === keys[0]) ? keys[0] : undefined;
}

/** The network key of a parsed address: its first octet (IPv4, 0-255) or 256 + its first 16 bits (IPv6). */
export function networkKey(ip: ParsedIp): number {
  return ip.v6 ? 256 + (ip.words[0] >>> 16) : ip.value >>> 24;
}

// The /8 or /16 networks a CIDR lies in, when its prefix is at least that long.
function cidrNetworks(cidr: string): number | undefined {
  const normal = normalizeCidr(cidr);
  if (!normal) return undefined;
  const [address, bits] = normal.split('/');
  const parsed = parseIp(address);
  if (!parsed || Number(bits) < (parsed.v6 ? 16 : 8)) return undefined;
  return networkKey(parsed);
}

/** The index key of a match. */
export function indexKey(match: Match): IndexKey {
  const paths = match.paths ?? [];
  const head = shared(paths.map(headKey));
  if (head !== undefined) return { head };
  const extension = shared(paths.map(extensionKey));
  if (extension !== undefined) return { extension };
  if (match.hosts?.length && match.hosts.every((pattern) => pattern.kind === 'exact')) return { hosts: match.hosts.map((pattern) => pattern.value.toLowerCase()) };
  const networks = (match.ips ?? []).map(cidrNetworks);
  if (networks.length && networks.every((network) => network !== undefined)) return { networks: networks as number[] };
  return 'always';
}
