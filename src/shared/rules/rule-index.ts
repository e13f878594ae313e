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
export type IndexKey = { head: string } | { extension: string } | { hosts: string[] } | { networks: string[] } | 'always';

export const HEAD_LENGTH = 2;

/** The first characters of a path after its leading slash: `/api/v1` → `ap`. */
export function pathHead(path: string): string {
  return path.slice(1, 1 + HEAD_LENGTH);
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

function headKey(pattern: Pattern): string | undefined {
  const literal = literalHead(pattern);
  return literal !== undefined && literal.length > HEAD_LENGTH ? pathHead(literal) : undefined;
}

// `*.css`: one leading star, then a literal extension.
function extensionKey(pattern: Pattern): string | undefined {
  if (pattern.kind !== 'wildcard' || pattern.case_sensitive === false) return undefined;
  const match = /^\*\.([A-Za-z0-9]+)$/.exec(pattern.value);
  return match?.[1];
}

function shared(keys: (string | undefined)[]): string | undefined {
  return keys.length && keys.every((key) => key !== undefined && key === keys[0]) ? keys[0] : undefined;
}

/** The network key of a parsed address: its first octet (IPv4) or first 16 bits (IPv6). */
export function networkKey(ip: ParsedIp): string {
  return ip.v6 ? `6:${ip.words[0] >>> 16}` : `4:${ip.value >>> 24}`;
}

// The /8 or /16 networks a CIDR lies in, when its prefix is at least that long.
function cidrNetworks(cidr: string): string | undefined {
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
  if (networks.length && networks.every((network) => network !== undefined)) return { networks: networks as string[] };
  return 'always';
}
