import { expect } from 'chai';
import { withLiveFields } from '../../src/gitops/drift-detail.js';
import { liveDomainOf, type Exported } from '../../src/gitops/live.js';

const exported: Exported = {
  domain: { id: 'd1', domain: 'live.example', zone_name: 'live.example' },
  routing: { routing_mode: 'geo' },
  cache: {},
  ssl: {},
  records: [{ id: 'r1', domain_id: 'd1', type: 'TXT', name: 'manual', fqdn: 'manual.live.example', content: 'made by hand', ttl: 600, proxied: false, routing_policy: 'simple', enabled: true, comment: null, created_at: 1, updated_at: 1 }],
  geo_routes: [],
  origins: [],
  rules: {},
};

describe('drift detail', () => {
  const live = new Map([['live.example', liveDomainOf(exported)]]);

  it('describes an item git does not list by its live fields, each with no value in git, defaults and ids left out', () => {
    const drift = [{ domain: 'live.example', resource: 'record' as const, key: 'TXT manual made by hand', action: 'delete' as const, fields: [] }];
    expect(withLiveFields(drift, live)).to.deep.equal([
      {
        ...drift[0],
        fields: [
          { field: 'type', before: 'TXT', after: null },
          { field: 'name', before: 'manual', after: null },
          { field: 'content', before: 'made by hand', after: null },
          { field: 'ttl', before: 600, after: null },
        ],
      },
    ]);
  });

  it('leaves drift that has its differing fields as it is', () => {
    const drift = [{ domain: 'live.example', resource: 'record' as const, key: 'TXT manual made by hand', action: 'update' as const, fields: [{ field: 'ttl', before: 600, after: 300 }] }];
    expect(withLiveFields(drift, live)).to.deep.equal(drift);
  });
});
