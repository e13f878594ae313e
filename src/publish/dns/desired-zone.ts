// What one domain's zone should hold (pure): the SOA and the platform NS set
// always; the records only while the domain is active (delegation verified or
// overridden). Proxied A/AAAA/CNAME names answer the edge addresses of the
// domain's routing instead of their own content: a proxied CNAME, apex or not,
// is so flattened into A/AAAA. Behaviour: docs/dns-publishing.md.
import { createHash } from 'node:crypto';
import { geoRecordLua, poolLua, type GeoRoute } from './geo-lua.js';
import { absolute, presentationContent, recordOwner } from './record-presentation.js';

/** An RRset as published: absolute owner name, type, TTL and its contents in presentation format, sorted. */
export type Rrset = { name: string; type: string; ttl: number; contents: string[] };

export type SoaSettings = { refresh: number; retry: number; expire: number; minimum: number; ttl: number };

export type ZoneRecord = {
  name: string;
  type: string;
  content: string;
  ttl: number;
  proxied: boolean;
  enabled: boolean;
  /** A geo-routed record's routes (stored order): it answers per client location, as a LUA record. */
  geoRoutes?: GeoRoute[];
};

/** Edge addresses per family; `byCountry`: the pool's edges per country they report. */
export type ProxiedAddresses = { ipv4: string[]; ipv6: string[]; byCountry?: Record<string, { ipv4: string[]; ipv6: string[] }> };

export type ZoneSource = {
  zone: string;
  status: 'pending_nameserver' | 'active' | 'disabled';
  /** The nameservers the domain is expected to delegate to (the apex NS set); the first is the SOA's primary. */
  nameservers: string[];
  records: ZoneRecord[];
  /**
   * The addresses proxied names answer, per family; null when the domain's routing is dns_only (proxied
   * records then publish their own content). `byCountry`: the pool's edges per country, for answers by
   * client location (geo routing without platform anycast).
   */
  proxied: ProxiedAddresses | null;
  soa: SoaSettings;
  nsTtl: number;
};

/** The zone's RRsets and what was left out, and why (for the sync events). */
export type DesiredZone = { zone: string; rrsets: Rrset[]; notes: string[] };

/** TTL of the edge addresses a proxied name answers: short, so an edge leaving the pool leaves resolvers' caches quickly. */
export const PROXIED_TTL = 60;
/** The SOA primary of a zone with no platform nameserver configured (RFC 6761 reserves .invalid). */
const NO_NAMESERVER = 'ns.invalid.';
const PROXIED_TYPES = new Set(['A', 'AAAA', 'CNAME']);

/** The SOA content with `serial`: primary nameserver, hostmaster mailbox, serial and the timers. */
export function soaContent(zone: string, primary: string | undefined, soa: SoaSettings, serial: number): string {
  return `${primary ? absolute(primary) : NO_NAMESERVER} hostmaster.${absolute(zone)} ${serial} ${soa.refresh} ${soa.retry} ${soa.expire} ${soa.minimum}`;
}

class RrsetCollector {
  private readonly sets = new Map<string, Rrset>();

  add(name: string, type: string, ttl: number, contents: string[]): void {
    const key = `${name} ${type}`;
    const set = this.sets.get(key);
    if (!set) {
      this.sets.set(key, { name, type, ttl, contents: [...contents] });
      return;
    }
    set.ttl = Math.min(set.ttl, ttl);
    set.contents.push(...contents);
  }

  drop(name: string, type: string): boolean {
    return this.sets.delete(`${name} ${type}`);
  }

  sorted(): Rrset[] {
    const sets = [...this.sets.values()].map((set) => ({ ...set, contents: [...new Set(set.contents)].sort() }));
    return sets.sort((a, b) => (a.name === b.name ? a.type.localeCompare(b.type) : a.name.localeCompare(b.name)));
  }
}

// Proxied names answer the edges: the non-proxied A/AAAA of the same name give way (a CNAME cannot share a name).
function publishProxied(collector: RrsetCollector, owners: Set<string>, proxied: ProxiedAddresses, notes: string[]): void {
  for (const owner of owners) {
    for (const type of ['A', 'AAAA', 'LUA']) if (collector.drop(owner, type)) notes.push(`${owner} ${type}: its own records give way to the edge addresses of its proxied record`);
    proxiedAnswers(collector, owner, proxied);
    if (!proxied.ipv4.length && !proxied.ipv6.length) notes.push(`${owner}: proxied, but no edge address to answer with (no edge in the pool and no anycast address)`);
  }
}

// By client location when edges report countries: one LUA record per family.
function proxiedAnswers(collector: RrsetCollector, owner: string, proxied: ProxiedAddresses): void {
  const countries = proxied.byCountry ?? {};
  for (const [type, family] of [['A', 'ipv4'], ['AAAA', 'ipv6']] as const) {
    if (!proxied[family].length) continue;
    const perCountry = Object.fromEntries(Object.entries(countries).map(([country, addresses]) => [country, addresses[family]]));
    const lua = Object.values(perCountry).some((addresses) => addresses.length) ? poolLua(type, perCountry, proxied[family]) : undefined;
    if (lua) collector.add(owner, 'LUA', PROXIED_TTL, [lua]);
    else collector.add(owner, type, PROXIED_TTL, proxied[family]);
  }
}

// A name and type answered by LUA records answers nothing else of that type.
function dropShadowedByLua(collector: RrsetCollector, notes: string[]): void {
  for (const rrset of collector.sorted()) {
    if (rrset.type !== 'LUA') continue;
    for (const type of new Set(rrset.contents.map((content) => content.split(' ')[0]))) {
      if (collector.drop(rrset.name, type)) notes.push(`${rrset.name} ${type}: its plain records give way to its geo-routed answers`);
    }
  }
}

/** The RRsets `source` should publish. */
export function desiredZone(source: ZoneSource): DesiredZone {
  const { zone } = source;
  const apex = absolute(zone);
  const notes: string[] = [];
  const collector = new RrsetCollector();
  collector.add(apex, 'SOA', source.soa.ttl, [soaContent(zone, source.nameservers[0], source.soa, 0)]);
  if (source.nameservers.length) collector.add(apex, 'NS', source.nsTtl, source.nameservers.map(absolute));
  if (source.status !== 'active') {
    const published = source.records.filter((record) => record.enabled).length;
    if (published) notes.push(`${published} records withdrawn: the domain is ${source.status}; only SOA and NS are published`);
    return { zone, rrsets: collector.sorted(), notes };
  }
  const proxiedOwners = new Set<string>();
  for (const record of source.records) {
    if (!record.enabled) continue;
    const owner = recordOwner(record.name, zone);
    if (record.proxied && PROXIED_TYPES.has(record.type) && source.proxied) {
      proxiedOwners.add(owner);
      continue;
    }
    if (record.type === 'CNAME' && owner === apex) {
      notes.push(`${owner} CNAME: a CNAME cannot be published at the apex without the edge flattening it (routing is dns_only)`);
      continue;
    }
    const lua = record.geoRoutes?.length && PROXIED_TYPES.has(record.type) ? geoRecordLua(record.type as 'A' | 'AAAA' | 'CNAME', record.geoRoutes) : undefined;
    if (lua) collector.add(owner, 'LUA', record.ttl, [lua]);
    else collector.add(owner, record.type, record.ttl, [presentationContent(record.type, record.content)]);
  }
  dropShadowedByLua(collector, notes);
  if (source.proxied) publishProxied(collector, proxiedOwners, source.proxied, notes);
  return { zone, rrsets: collector.sorted(), notes };
}

/** A digest of a desired zone: equal digests, equal zones. */
export function zoneDigest(desired: DesiredZone): string {
  return createHash('sha256').update(JSON.stringify(desired.rrsets)).digest('hex');
}
