import { expect } from 'chai';
import { TestCore, type Json } from '../../support/core.js';

describe('SSL preferences', () => {
  let core: TestCore;
  let domain: Json;
  before(async () => {
    core = await TestCore.start();
    domain = await core.createDomain('ssl.example');
  });
  after(async () => {
    await core.stop();
  });

  it('shows documented defaults and no certificates for a new domain', async () => {
    const ssl = (await core.get(`/api/v1/domains/${domain.id}/ssl`)).data;
    expect(ssl.settings).to.include({ mode: 'full', automatic: true, always_https: false, min_tls_version: '1.2', hsts_enabled: false, hsts_max_age: 31536000, customised: false });
    expect(ssl.certificates).to.deep.equal([]);
  });

  it('merges a PATCH into the stored preferences and marks the config dirty', async () => {
    const before = Number((await core.db.publishState.findUnique({ where: { id: 1 } }))?.change_seq ?? 0);
    expect((await core.patch(`/api/v1/domains/${domain.id}/ssl/settings`, { mode: 'strict', always_https: true })).data).to.include({ mode: 'strict', always_https: true, min_tls_version: '1.2', customised: true });
    expect((await core.patch(`/api/v1/domains/${domain.id}/ssl/settings`, { hsts_enabled: true })).data).to.include({ mode: 'strict', always_https: true, hsts_enabled: true });
    expect(Number((await core.db.publishState.findUniqueOrThrow({ where: { id: 1 } })).change_seq)).to.equal(before + 2);
  });

  it('rejects bad values with 422 and unknown domains with 404', async () => {
    expect((await core.patch(`/api/v1/domains/${domain.id}/ssl/settings`, { mode: 'paranoid' }, 422)).field).to.equal('mode');
    expect((await core.patch(`/api/v1/domains/${domain.id}/ssl/settings`, { min_tls_version: '0.9' }, 422)).field).to.equal('min_tls_version');
    expect((await core.patch(`/api/v1/domains/${domain.id}/ssl/settings`, { hsts_max_age: -1 }, 422)).field).to.equal('hsts_max_age');
    await core.get('/api/v1/domains/missing/ssl', 404);
    await core.patch('/api/v1/domains/missing/ssl/settings', { mode: 'off' }, 404);
  });
});
