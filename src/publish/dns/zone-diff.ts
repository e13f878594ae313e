// The RRset changes that turn what PowerDNS holds into the desired zone (pure):
// deletes first, then replaces, for one PATCH. The SOA is compared without its
// serial, which PowerDNS owns (SOA-EDIT-API); a record switched off in PowerDNS
// counts as a difference, so the sync switches it back on.
import type { PowerDnsRrset, RrsetChange } from './powerdns-client.js';
import type { Rrset } from './desired-zone.js';

type Held = { ttl: number; contents: string[]; serial: string | undefined };

const key = (name: string, type: string) => `${name.toLowerCase()} ${type}`;

function withoutSerial(soa: string): string {
  const fields = soa.split(/\s+/);
  fields.splice(2, 1);
  return fields.join(' ');
}

function held(rrset: PowerDnsRrset): Held {
  const switchedOff = rrset.records.some((record) => record.disabled);
  const contents = rrset.records.map((record) => record.content);
  return {
    ttl: rrset.ttl,
    // A disabled record never equals a desired one: the whole set is replaced.
    contents: switchedOff ? ['(disabled)'] : [...new Set(contents)].sort(),
    serial: rrset.type === 'SOA' ? contents[0]?.split(/\s+/)[2] : undefined,
  };
}

function same(desired: Rrset, current: Held): boolean {
  if (desired.ttl !== current.ttl || desired.contents.length !== current.contents.length) return false;
  if (desired.type === 'SOA') return withoutSerial(desired.contents[0]) === withoutSerial(current.contents[0]);
  return desired.contents.every((content, index) => content === current.contents[index]);
}

// A changed SOA keeps the serial PowerDNS has, which SOA-EDIT-API then moves on.
function replacement(desired: Rrset, current: Held | undefined): RrsetChange {
  const contents = desired.type === 'SOA' && current?.serial ? desired.contents.map((soa) => soa.split(/\s+/).map((field, index) => (index === 2 ? current.serial : field)).join(' ')) : desired.contents;
  return { name: desired.name, type: desired.type, ttl: desired.ttl, changetype: 'REPLACE', records: contents.map((content) => ({ content, disabled: false })) };
}

/** The changes from `actual` (the zone's RRsets in PowerDNS) to `desired`; empty when they already agree. */
export function zoneChanges(desired: Rrset[], actual: PowerDnsRrset[]): RrsetChange[] {
  const current = new Map(actual.map((rrset) => [key(rrset.name, rrset.type), { rrset, held: held(rrset) }]));
  const wanted = new Set(desired.map((rrset) => key(rrset.name, rrset.type)));
  const deletes: RrsetChange[] = [];
  for (const [name, entry] of current) if (!wanted.has(name)) deletes.push({ name: entry.rrset.name, type: entry.rrset.type, changetype: 'DELETE' });
  const replaces: RrsetChange[] = [];
  for (const rrset of desired) {
    const entry = current.get(key(rrset.name, rrset.type));
    if (!entry || !same(rrset, entry.held)) replaces.push(replacement(rrset, entry?.held));
  }
  return [...deletes, ...replaces];
}
