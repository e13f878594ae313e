// Telemetry names hosts; events are filed under the domain whose apex is the host or its closest parent.

function parents(host: string): string[] {
  const labels = host.toLowerCase().replace(/\.$/, '').split('.');
  return labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'));
}

/** Every apex a set of hosts could belong to (each host and its parents, never a bare TLD). */
export function apexCandidates(hosts: Iterable<string>): string[] {
  const candidates = new Set<string>();
  for (const host of hosts) for (const apex of parents(host)) candidates.add(apex);
  return [...candidates];
}

/** The domain id of each host: the longest known apex that is the host or one of its parents, else null. */
export function domainOfHosts(hosts: Iterable<string>, known: { id: string; domain: string }[]): Map<string, string | null> {
  const byApex = new Map(known.map((row) => [row.domain, row.id]));
  const result = new Map<string, string | null>();
  for (const host of hosts) result.set(host, parents(host).map((apex) => byApex.get(apex)).find((id) => id !== undefined) ?? null);
  return result;
}
