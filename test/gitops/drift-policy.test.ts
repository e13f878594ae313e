import { expect } from 'chai';
import { desiredModel } from '../../src/gitops/model.js';
import { separateDrift } from '../../src/gitops/ownership.js';
import { planDomain } from '../../src/gitops/plan.js';
import type { DomainSpec } from '../../src/gitops/spec.js';

const record = (name: string, content = '192.0.2.1') => ({ type: 'A', name, content, ttl: 300, proxied: false, routing_policy: 'simple', enabled: true });
const spec = (records: ReturnType<typeof record>[], geo: DomainSpec['geo_routes'] = []): DomainSpec => ({ domain: 'own.example', policy: { prune: true, self_heal: false }, records, geo_routes: geo });
const SAME = 'commit 1';
const LATER = 'commit 2';

describe('drift between commits and on a new commit', () => {
  const applied = { model: desiredModel(spec([record('a'), record('b')])), revision: SAME };
  const summary = (changes: { action: string; key: string }[]) => changes.map((change) => `${change.action} ${change.key}`);

  it('between commits, keeps a live item the file does not list and reports it as drift; self_heal deletes it and reports it as reverted', () => {
    const live = desiredModel(spec([record('a'), record('b'), record('manual')]));
    const plan = planDomain(applied.model, live, { prune: true });
    const kept = separateDrift(plan, applied, false, SAME);
    expect(kept.plan.changes).to.deep.equal([]);
    expect(kept.plan).to.include({ action: 'unchanged' });
    expect(kept.plan.counts).to.deep.equal({ creates: 0, updates: 0, deletes: 0, unchanged: 4 });
    expect(kept.drift).to.deep.equal([{ domain: 'own.example', resource: 'record', key: 'A manual 192.0.2.1', action: 'delete', fields: [] }]);
    const healed = separateDrift(plan, applied, true, SAME);
    expect(summary(healed.plan.changes)).to.deep.equal(['delete A manual 192.0.2.1']);
    expect(summary(healed.reverted)).to.deep.equal(['delete A manual 192.0.2.1']);
  });

  it('on a new commit, prunes a live item the file does not list (not drift)', () => {
    const live = desiredModel(spec([record('a'), record('b'), record('manual')]));
    const { plan, drift } = separateDrift(planDomain(applied.model, live, { prune: true }), applied, false, LATER);
    expect(summary(plan.changes)).to.deep.equal(['delete A manual 192.0.2.1']);
    expect(drift).to.deep.equal([]);
  });

  it('leaves an item the file lists and the API deleted as drift, between commits and on a new commit, until git changes it', () => {
    const live = desiredModel(spec([record('a')]));
    for (const revision of [SAME, LATER]) {
      const { plan, drift } = separateDrift(planDomain(applied.model, live, { prune: true }), applied, false, revision);
      expect(plan.changes).to.deep.equal([]);
      expect(plan.counts).to.deep.equal({ creates: 0, updates: 0, deletes: 0, unchanged: 2 });
      expect(summary(drift)).to.deep.equal(['create A b 192.0.2.1']);
    }
    const changed = desiredModel(spec([record('a'), { ...record('b'), ttl: 900 }]));
    const { plan, drift } = separateDrift(planDomain(changed, live, { prune: true }), applied, false, LATER);
    expect(summary(plan.changes)).to.deep.equal(['create A b 192.0.2.1']);
    expect(drift).to.deep.equal([]);
  });

  it('creates again a record the API deleted when git changes its geo routes, which need it', () => {
    const routes = (target: string) => [{ record: 'b', routes: [{ scope: 'default' as const, target }] }];
    const before = { model: desiredModel(spec([record('a'), record('b')], routes('192.0.2.8'))), revision: SAME };
    const desired = desiredModel(spec([record('a'), record('b')], routes('192.0.2.9')));
    const live = desiredModel(spec([record('a')]));
    const { plan, drift } = separateDrift(planDomain(desired, live, { prune: true }), before, false, LATER);
    expect(plan.changes.map((change) => `${change.action} ${change.resource}`)).to.deep.equal(['create record', 'create geo_routes']);
    expect(drift).to.deep.equal([]);
  });

  it('creates a git-owned domain deleted through the API whole again', () => {
    const { plan, drift } = separateDrift(planDomain(applied.model, undefined, { prune: true }), applied, false, SAME);
    expect(plan.action).to.equal('create');
    expect(drift).to.deep.equal([]);
  });
});
