import { expect } from 'chai';
import { desiredModel } from '../../src/gitops/model.js';
import { separateDrift } from '../../src/gitops/ownership.js';
import { planDomain } from '../../src/gitops/plan.js';
import type { DomainSpec } from '../../src/gitops/spec.js';

const record = (name: string, ttl = 300) => ({ type: 'A', name, content: '192.0.2.1', ttl, proxied: false, routing_policy: 'simple', enabled: true });
const spec = (records: ReturnType<typeof record>[]): DomainSpec => ({ domain: 'own.example', policy: { prune: true, self_heal: false }, records });

describe('drift and ownership', () => {
  const applied = { model: desiredModel(spec([record('a'), record('b')])), revision: 'commit 1' };
  // Each test plans a later commit than the one applied.
  const LATER = 'commit 2';

  it('treats an update of an item git did not change as drift, not as a change', () => {
    const live = desiredModel(spec([record('a', 60), record('b')]));
    const plan = planDomain(applied.model, live, { prune: true });
    const { plan: kept, drift } = separateDrift(plan, applied, false, LATER);
    expect(kept.changes).to.deep.equal([]);
    expect(kept.action).to.equal('unchanged');
    expect(drift).to.deep.equal([{ domain: 'own.example', resource: 'record', key: 'A a 192.0.2.1', action: 'update', fields: [{ field: 'ttl', before: 60, after: 300 }] }]);
  });

  it('applies a git change to an item even when it also differs live', () => {
    const desired = desiredModel(spec([record('a', 900), record('b')]));
    const live = desiredModel(spec([record('a', 60), record('b')]));
    const { plan, drift } = separateDrift(planDomain(desired, live, { prune: true }), applied, false, LATER);
    expect(plan.changes.map((change) => change.fields)).to.deep.equal([[{ field: 'ttl', before: 60, after: 900 }]]);
    expect(drift).to.deep.equal([]);
  });

  it('treats live items the file does not list on a new commit as cdn plan does: pruned with prune on, kept and listed with it off', () => {
    const desired = desiredModel(spec([record('a')]));
    const live = desiredModel(spec([record('a'), record('b'), record('manual')]));
    const { plan } = separateDrift(planDomain(desired, live, { prune: true }), applied, false, LATER);
    expect(plan.changes.map((change) => `${change.action} ${change.key}`)).to.deep.equal(['delete A b 192.0.2.1', 'delete A manual 192.0.2.1']);
    const kept = separateDrift(planDomain(desired, live, { prune: false }), applied, false, LATER).plan;
    expect(kept.changes).to.deep.equal([]);
    expect(kept.unmanaged.map((item) => item.key)).to.deep.equal(['A b 192.0.2.1', 'A manual 192.0.2.1']);
  });

  it('reverts drift with self_heal on and reports it as reverted, with the drifted values', () => {
    const live = desiredModel(spec([record('a', 60), record('b')]));
    const plan = planDomain(applied.model, live, { prune: true });
    const healed = separateDrift(plan, applied, true, LATER);
    expect(healed.plan.changes).to.have.length(1);
    expect(healed.drift).to.deep.equal([]);
    expect(healed.reverted).to.deep.equal([{ domain: 'own.example', resource: 'record', key: 'A a 192.0.2.1', action: 'update', fields: [{ field: 'ttl', before: 60, after: 300 }] }]);
    expect(separateDrift(plan, undefined, false, LATER).plan.changes).to.have.length(1);
  });

  it('never treats the geo routes re-put on a recreated record as drift', () => {
    const geoSpec = (content: string): DomainSpec => ({
      domain: 'own.example',
      policy: { prune: true, self_heal: false },
      records: [{ ...record('api'), content }],
      geo_routes: [{ record: 'api', routes: [{ scope: 'default', target: '192.0.2.9' }] }],
    });
    const before = { model: desiredModel(geoSpec('192.0.2.1')), revision: 'commit 1' };
    const recreated = desiredModel({ ...geoSpec('192.0.2.1'), records: [{ ...record('api'), type: 'CNAME', content: 'api.elsewhere.example' }], geo_routes: [{ record: 'api', type: 'CNAME', routes: [{ scope: 'default', target: '192.0.2.9' }] }] });
    const live = desiredModel({ ...geoSpec('192.0.2.1'), geo_routes: [{ record: 'api', type: 'CNAME', routes: [{ scope: 'default', target: '192.0.2.9' }] }] });
    const plan = planDomain(recreated, live, { prune: true });
    const { plan: kept, drift } = separateDrift(plan, before, false, LATER);
    expect(drift).to.deep.equal([]);
    expect(kept.changes.map((change) => `${change.action} ${change.resource}`)).to.deep.equal(['create record', 'delete record', 'update geo_routes']);
  });
});
