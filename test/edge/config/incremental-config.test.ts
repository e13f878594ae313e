import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { checkDeltaAnswer } from '../../../src/edge/agent/delta-check.js';
import { checkConfigAnswer, type PulledSnapshot } from '../../../src/edge/agent/snapshot-check.js';
import { compileActiveConfig, patchActiveConfig, type ActiveConfig } from '../../../src/edge/config/active-config.js';
import type { SnapshotDomain, SnapshotOrigin } from '../../../src/shared/snapshot.js';
import { snapshotParts, writeDelta } from '../../../src/shared/snapshot-delta.js';
import { origin, snapshotDomain } from '../origin/support.js';

const MAX_BYTES = 1 << 24;
const CACHE = { caching_enabled: true, default_edge_ttl_seconds: 3600, browser_ttl_seconds: 14400, respect_origin_cache_control: true, query_string_mode: 'include', stale_while_revalidate_seconds: 0, stale_if_error_seconds: 0, development_mode: false, targeted_cache_control_header: null, strict_rfc9111: false };
const SSL = { mode: 'full', always_https: false, min_tls_version: '1.2', hsts_enabled: false, hsts_max_age: 31536000 };
/** A domain as the core publishes it (the snapshot schema's required settings), `apex` with `hostnames`. */
const domainOf = (apex: string, hostnames: string[], origins: SnapshotOrigin[] = [origin({ port: 8000 })]): SnapshotDomain => ({ ...snapshotDomain(origins), domain: apex, hostnames, cache: CACHE, ssl: SSL });
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const snapshotOf = (domains: SnapshotDomain[], purges: unknown[] = []) => Buffer.from(JSON.stringify({ schema_version: 2, edge: { challenge_difficulty: 3, security: {} }, domains, purges }));
const envelope = (version: number, bytes: Buffer, key: 'snapshot' | 'delta', checksum: string) => Buffer.concat([Buffer.from(`{"data":{"version":${version},"checksum":"${checksum}","created_at":1,"${key}":`), bytes, Buffer.from('}}')]);

function pulledFull(version: number, bytes: Buffer): PulledSnapshot {
  const check = checkConfigAnswer(envelope(version, bytes, 'snapshot', sha256(bytes)), MAX_BYTES);
  if (check.kind !== 'snapshot') throw new Error(`not a snapshot: ${JSON.stringify(check)}`);
  return check.pulled;
}

/** The delta answer from `from` (version `version - 1`) to `to`, checked by the edge's delta path. */
function pulledChange(active: PulledSnapshot, to: Buffer, version: number) {
  const delta = writeDelta(snapshotParts(Buffer.concat(active.chunks)), snapshotParts(to), active.version, active.checksum)!;
  return checkDeltaAnswer(envelope(version, delta, 'delta', sha256(to)), active, MAX_BYTES);
}

/** What serving reads of a compiled config, with domains named by id. */
function tables(config: ActiveConfig) {
  return {
    order: config.domains.map((domain) => domain.id),
    byId: [...config.domainsById].map(([id, domain]) => [id, domain.snapshot]).sort(),
    hosts: [...config.hosts].map(([host, domain]) => [host, domain.id]).sort(),
    originIds: [...config.originIds].sort(),
    edge: config.edge,
    purges: config.purges,
  };
}

// A small seeded generator, so a failure can be replayed.
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

describe('an edge applies a config change by compiling only what changed', () => {
  it('over 300 random changes, the patched config equals the whole snapshot compiled (hostnames two domains claim included)', () => {
    const next = random(7);
    const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)];
    const shared = ['shared-a.test', 'shared-b.test', '*.shared.test', 'shared-c.test'];
    const sharedOrigins = [origin({ port: 8001 }), origin({ port: 8002 })];
    let serial = 0;
    const newDomain = (): SnapshotDomain => {
      const apex = `d${String(Math.floor(next() * 1000)).padStart(3, '0')}-${serial++}.test`;
      const hostnames = [...new Set([apex, `www.${apex}`, ...shared.filter(() => next() < 0.3)])].sort();
      const origins = [next() < 0.3 ? pick(sharedOrigins) : origin({ port: 9000 + serial })];
      return domainOf(apex, hostnames, origins);
    };
    let domains = Array.from({ length: 12 }, newDomain);
    const sorted = () => [...domains].sort((a, b) => (a.domain < b.domain ? -1 : 1));
    let bytes = snapshotOf(sorted());
    let pulled = pulledFull(1, bytes);
    let active = compileActiveConfig(pulled.snapshot, pulled.version, pulled.checksum);
    let purges: unknown[] = [];
    for (let round = 2; round <= 301; round++) {
      const roll = next();
      if (roll < 0.25 && domains.length > 2) domains.splice(Math.floor(next() * domains.length), 1);
      else if (roll < 0.5) domains.push(newDomain());
      else if (roll < 0.75) {
        const at = Math.floor(next() * domains.length);
        domains[at] = { ...domains[at], hostnames: [...new Set([domains[at].domain, ...shared.filter(() => next() < 0.5)])].sort() };
      } else if (roll < 0.9) {
        const at = Math.floor(next() * domains.length);
        domains[at] = { ...domains[at], origins: [pick([...sharedOrigins, origin({ port: 7000 + round })])] };
      } else purges = [...purges, { id: `p${round}`, domain_id: pick(domains).id, scope: 'everything', value: null, created_at: round }].slice(-3);
      domains = [...domains];
      bytes = snapshotOf(sorted(), purges);
      const check = pulledChange(pulled, bytes, round);
      if (check?.kind !== 'snapshot') throw new Error(`round ${round}: ${JSON.stringify(check)}`);
      expect(check.pulled.change, `round ${round}`).to.not.equal(undefined);
      active = patchActiveConfig(active, check.pulled.change!, check.pulled.version, check.pulled.checksum);
      pulled = check.pulled;
      expect(tables(active), `round ${round}`).to.deep.equal(tables(compileActiveConfig(JSON.parse(bytes.toString()), round, pulled.checksum)));
    }
  });

  it('keeps the copied domains as they were and parses only the inserted one', () => {
    const [first, second, third] = ['a.test', 'b.test', 'c.test'].map((apex) => domainOf(apex, [apex]));
    const before = pulledFull(1, snapshotOf([first, second, third]));
    const changed = { ...second, hostnames: ['b.test', 'shop.b.test'] };
    const check = pulledChange(before, snapshotOf([first, changed, third]), 2);
    if (check?.kind !== 'snapshot') throw new Error(JSON.stringify(check));
    const [copiedFirst, inserted, copiedThird] = check.pulled.snapshot.domains;
    expect(copiedFirst).to.equal(before.snapshot.domains[0]);
    expect(copiedThird).to.equal(before.snapshot.domains[2]);
    expect(inserted).to.deep.equal(changed);
    expect(check.pulled.change).to.deep.equal({ since: 1, sinceChecksum: before.checksum, sections: {}, domains: [1, changed, -1, 1] });
    expect(check.pulled.size).to.equal(snapshotOf([first, changed, third]).length);
  });

  it('refuses an inserted domain that breaks the schema, with the reason a whole download would give', () => {
    const domains = ['a.test', 'b.test'].map((apex) => domainOf(apex, [apex]));
    const before = pulledFull(1, snapshotOf(domains));
    const broken = snapshotOf([domains[0], { ...domains[1], origins: [{ ...domains[1].origins[0], port: 'eighty' as never }] }]);
    const whole = checkConfigAnswer(envelope(2, broken, 'snapshot', sha256(broken)), MAX_BYTES);
    expect(whole.kind).to.equal('invalid');
    expect(pulledChange(before, broken, 2)).to.deep.equal({ kind: 'invalid', reason: `delta to version 2: ${(whole as { reason: string }).reason}`, version: 2 });
  });

  it('refuses a change that does not start from the active version, and changes nothing', () => {
    const domains = ['a.test', 'b.test'].map((apex) => domainOf(apex, [apex]));
    const active = compileActiveConfig(JSON.parse(snapshotOf(domains).toString()), 3, 'three');
    const before = tables(active);
    expect(() => patchActiveConfig(active, { since: 2, sinceChecksum: 'two', sections: {}, domains: [-1, 1] }, 4, 'four')).to.throw(/starts from version 2/);
    expect(() => patchActiveConfig(active, { since: 3, sinceChecksum: 'three', sections: {}, domains: [-1, 5] }, 4, 'four')).to.throw(/goes past/);
    expect(tables(active)).to.deep.equal(before);
  });
});
