import ipaddr from 'ipaddr.js';
import type { Match, NamedCondition, Pattern, RequestFacts } from '../../../src/shared/rules/types.js';

// A deliberately plain evaluator of the match semantics, written without the
// compiled matcher's tricks, to check it against.

function globMatches(glob: string, value: string): boolean {
  if (glob === '') return value === '';
  if (glob[0] === '*') return [...Array(value.length + 1).keys()].some((skip) => globMatches(glob.slice(1), value.slice(skip)));
  return value.length > 0 && glob[0] === value[0] && globMatches(glob.slice(1), value.slice(1));
}

function patternMatches(pattern: Pattern, value: string, caseSensitiveByDefault: boolean): boolean {
  const sensitive = pattern.case_sensitive ?? caseSensitiveByDefault;
  const fold = (text: string) => (sensitive ? text : text.toLowerCase());
  switch (pattern.kind) {
    case 'exact':
      return fold(value) === fold(pattern.value);
    case 'prefix':
      return fold(value).startsWith(fold(pattern.value));
    case 'wildcard':
      return globMatches(fold(pattern.value), fold(value));
    case 'regex':
      return new RegExp(pattern.value, sensitive ? '' : 'i').test(value);
  }
}

// A parameter sent several times holds when any of its values does.
function namedHolds(condition: NamedCondition, values: Record<string, string | readonly string[]>, sensitive: boolean, lowerName: boolean): boolean {
  const value = values[lowerName ? condition.name.toLowerCase() : condition.name];
  const all = typeof value === 'string' ? [value] : value;
  let holds: boolean;
  if (condition.present === false) holds = all === undefined;
  else if (all === undefined) holds = false;
  else holds = condition.pattern ? all.some((one) => patternMatches(condition.pattern!, one, sensitive)) : true;
  return condition.negate ? !holds : holds;
}

function inCidrs(ip: string | undefined, cidrs: string[]): boolean {
  if (!ip || !ipaddr.isValid(ip)) return false;
  let address = ipaddr.parse(ip);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) address = (address as ipaddr.IPv6).toIPv4Address();
  return cidrs.some((cidr) => {
    const range = cidr.includes('/') ? ipaddr.parseCIDR(cidr) : ipaddr.parseCIDR(`${cidr}/${cidr.includes(':') ? 128 : 32}`);
    return range[0].kind() === address.kind() && address.match(range as [ipaddr.IPv4 | ipaddr.IPv6, number] as never);
  });
}

/** Whether `request` satisfies `match`, evaluated the slow, obvious way. */
export function referenceMatches(match: Match, request: RequestFacts): boolean {
  const checks = [
    !match.hosts?.length || match.hosts.some((pattern) => patternMatches({ ...pattern, case_sensitive: false }, request.host, false)),
    !match.paths?.length || match.paths.some((pattern) => patternMatches(pattern, request.path, true)),
    !match.methods?.length || match.methods.map((method) => method.toUpperCase()).includes(request.method.toUpperCase()),
    (match.query ?? []).every((condition) => namedHolds(condition, request.query, true, false)),
    (match.headers ?? []).every((condition) => namedHolds(condition, request.headers, false, true)),
    (match.cookies ?? []).every((condition) => namedHolds(condition, request.cookies, true, false)),
    !match.countries?.length || match.countries.includes(request.country ?? ''),
    !match.not_countries?.length || !match.not_countries.includes(request.country ?? ''),
    !match.ips?.length || inCidrs(request.ip, match.ips),
    !match.not_ips?.length || !inCidrs(request.ip, match.not_ips),
  ];
  return checks.every(Boolean);
}
