import { expect } from 'chai';
import { desiredModel, type DomainModel } from '../../src/gitops/model.js';
import { fieldChanges, planDomain, safetyProblem, combinePlans } from '../../src/gitops/plan.js';
import type { DomainSpec } from '../../src/gitops/spec.js';

const spec = (extra: Partial<DomainSpec> = {}): DomainSpec => ({
  domain: 'plan.example',
  policy: { prune: true, self_heal: false },
  records: [
    { type: 'A', name: 'www', content: '192.0.2.1', ttl: 300, proxied: true, routing_policy: 'simple', enabled: true },
    { type: 'MX', name: '@', content: '10 MX.example.net.', ttl: 300, proxied: false, routing_policy: 'simple', enabled: true },
  ],
  origins: [{ host: 'Origin.example.net', scheme: 'https' }],
  headers: [{ name: 'hsts', header_name: 'Strict-Transport-Security', value: 'max-age=1' }],
  ...extra,
});

// The live side as the API would show it after applying `spec()`: canonical names, content and defaults.
function liveOf(model: DomainModel): DomainModel {
  return { ...model, records: new Map([...model.records].map(([key, record]) => [key, { ...record, id: `id-${key}`, fqdn: 'x' }])) };
}

describe('planning (pure)', () => {
  it('plans a new domain as creates of the domain and every item', () => {
    const plan = planDomain(desiredModel(spec()), undefined, { prune: true });
    expect(plan.action).to.equal('create');
    expect(plan.changes.map((change) => `${change.action} ${change.resource}`)).to.deep.equal(['create domain', 'create origin', 'create record', 'create record', 'create headers']);
  });

  it('finds nothing to change when only the order of items differs and names and content are written differently', () => {
    const live = liveOf(desiredModel(spec()));
    const reordered = spec({
      records: [
        { type: 'MX', name: 'plan.example.', content: '10 mx.example.net', ttl: 300, proxied: false, routing_policy: 'simple', enabled: true },
        { type: 'A', name: 'WWW', content: '192.0.2.1', ttl: 300, proxied: true, routing_policy: 'simple', enabled: true },
      ],
    });
    const plan = planDomain(desiredModel(reordered), live, { prune: true });
    expect(plan.action).to.equal('unchanged');
    expect(plan.counts).to.include({ creates: 0, updates: 0, deletes: 0 });
  });

  it('turns a content change into a delete and a create (content is part of a record identity)', () => {
    const live = liveOf(desiredModel(spec()));
    const changed = spec({ records: [{ type: 'A', name: 'www', content: '192.0.2.2', ttl: 300, proxied: true, routing_policy: 'simple', enabled: true }] });
    const plan = planDomain(desiredModel(changed), live, { prune: true });
    expect(plan.changes.map((change) => `${change.action} ${change.key}`)).to.deep.equal(['create A www 192.0.2.2', 'delete A www 192.0.2.1', 'delete MX @ 10 mx.example.net']);
  });

  it('reports field-level before and after for updates', () => {
    const live = liveOf(desiredModel(spec()));
    const changed = spec({ records: [{ type: 'A', name: 'www', content: '192.0.2.1', ttl: 60, proxied: false, routing_policy: 'simple', enabled: true }] });
    const update = planDomain(desiredModel(changed), live, { prune: false }).changes[0];
    expect(update).to.deep.include({ action: 'update', resource: 'record', key: 'A www 192.0.2.1' });
    expect(update.fields).to.deep.equal([
      { field: 'ttl', before: 300, after: 60 },
      { field: 'proxied', before: true, after: false },
    ]);
  });

  it('keeps live items absent from the file when prune is off', () => {
    const live = liveOf(desiredModel(spec()));
    const plan = planDomain(desiredModel(spec({ records: [], headers: [] })), live, { prune: false });
    expect(plan.counts.deletes).to.equal(0);
  });

  it('compares secrets only as set or unset and never shows their value', () => {
    expect(fieldChanges({ origin_shield_secret: '${SECRET}' }, { origin_shield_secret: '(set)' })).to.deep.equal([]);
    expect(fieldChanges({ origin_shield_secret: '${SECRET}' }, {})).to.deep.equal([{ field: 'origin_shield_secret', before: null, after: '(secret)' }]);
  });

  it('gates plans that delete too large a share of live items', () => {
    const live = liveOf(desiredModel(spec()));
    const plan = combinePlans([], [planDomain(desiredModel(spec({ records: [], headers: [] })), live, { prune: true })]);
    expect(safetyProblem(plan, 25)).to.match(/deletes 3 of 4 live items \(75%\)/);
    expect(safetyProblem(plan, 80)).to.equal(undefined);
  });

  it('clears a nullable rule field that the file no longer sets', () => {
    const withLimit = (extra: object) => spec({ rate_limits: [{ name: 'login', requests: 10, period_seconds: 60, key: 'ip', action: 'challenge', block_seconds: 60, enabled: true, priority: 1000, ...extra }] });
    const live = liveOf(desiredModel(withLimit({ challenge_difficulty: 4 })));
    const update = planDomain(desiredModel(withLimit({})), live, { prune: true }).changes.find((change) => change.resource === 'rate_limits')!;
    expect(update.fields).to.deep.equal([{ field: 'challenge_difficulty', before: 4, after: null }]);
  });
});
