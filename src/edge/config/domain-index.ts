// The lookup tables of an edge worker's active config: domains by id, the domain holding each
// hostname, and the origin ids in use. A hostname two domains claim goes to the first in snapshot order (by apex). A new
// version patches the tables in place for the domains its change removed and inserted, instead of
// building 10,000 domains' worth of entries again.

/** What the index needs of a domain: its id, the hostnames it claims and its origins. */
export type IndexedDomain = { readonly id: string; readonly origins: readonly { readonly id: string }[]; readonly snapshot: { readonly hostnames: readonly string[] } };

export class DomainIndex<D extends IndexedDomain> {
  readonly byId = new Map<string, D>();
  readonly hosts = new Map<string, D>();
  /** Each origin id in use, with how many domains list it. */
  readonly originIds = new Map<string, number>();
  /** How many domains claim a hostname, for the hostnames more than one domain claims. */
  private readonly contested = new Map<string, number>();

  constructor(domains: readonly D[]) {
    for (const domain of domains) {
      this.byId.set(domain.id, domain);
      this.countOrigins(domain, 1);
      for (const hostname of domain.snapshot.hostnames) {
        if (this.hosts.has(hostname)) this.contested.set(hostname, (this.contested.get(hostname) ?? 1) + 1);
        else this.hosts.set(hostname, domain);
      }
    }
  }

  /**
   * Takes `removed` out and puts `inserted` in; `domains` is the new list in order. A hostname whose
   * holder left, or that an inserted domain shares, goes to its first claimer in `domains`.
   */
  patch(domains: readonly D[], removed: readonly D[], inserted: readonly D[]): void {
    const unsettled = new Set<string>();
    for (const domain of removed) {
      if (this.byId.get(domain.id) === domain) this.byId.delete(domain.id);
      this.countOrigins(domain, -1);
      for (const hostname of domain.snapshot.hostnames) this.release(hostname, domain, unsettled);
    }
    for (const domain of inserted) {
      this.byId.set(domain.id, domain);
      this.countOrigins(domain, 1);
      for (const hostname of domain.snapshot.hostnames) this.claim(hostname, domain, unsettled);
    }
    if (unsettled.size) this.settle(domains, unsettled);
  }

  private countOrigins(domain: D, by: 1 | -1): void {
    for (const { id } of domain.origins) {
      const count = (this.originIds.get(id) ?? 0) + by;
      if (count > 0) this.originIds.set(id, count);
      else this.originIds.delete(id);
    }
  }

  private release(hostname: string, domain: D, unsettled: Set<string>): void {
    const claims = this.contested.get(hostname);
    if (claims === undefined) {
      if (this.hosts.get(hostname) === domain) this.hosts.delete(hostname);
      return;
    }
    if (claims === 2) this.contested.delete(hostname);
    else this.contested.set(hostname, claims - 1);
    if (this.hosts.get(hostname) === domain) unsettled.add(hostname);
  }

  private claim(hostname: string, domain: D, unsettled: Set<string>): void {
    if (!this.hosts.has(hostname) && !unsettled.has(hostname)) return void this.hosts.set(hostname, domain);
    this.contested.set(hostname, (this.contested.get(hostname) ?? 1) + 1);
    unsettled.add(hostname);
  }

  // One pass over the new list in order: each unsettled hostname goes to its first claimer, or to none.
  private settle(domains: readonly D[], unsettled: Set<string>): void {
    for (const hostname of unsettled) this.hosts.delete(hostname);
    for (const domain of domains) {
      for (const hostname of domain.snapshot.hostnames) {
        if (unsettled.has(hostname) && !this.hosts.has(hostname)) this.hosts.set(hostname, domain);
      }
    }
  }
}
