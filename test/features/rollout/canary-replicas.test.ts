import { expect } from 'chai';
import { heartbeat } from '../../../src/features/edges/service.js';
import { evaluateCanaryRollout } from '../../../src/features/rollout/canary-loop.js';
import { TestCore } from '../../support/core.js';

// Several core replicas run the canary loop: the advisory lock lets one decide at a time.
describe('canary rollout with several core replicas', () => {
  let core: TestCore;
  before(async () => {
    core = await TestCore.start();
    const domain = await core.createDomain('canary-replicas.example');
    await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
    await core.post('/api/v1/config/snapshots/rebuild', undefined);
    await heartbeat(core.db, { edge_id: 'edge-canary', labels: ['canary'] }, 'edge-canary', 'token', 30);
  });
  after(async () => {
    await core.stop();
  });

  it('starts a bake once when evaluations run at the same time', async () => {
    const evaluate = () => evaluateCanaryRollout(core.db, core.core.connection.pool, 30);
    await core.patch('/api/v1/settings/rollout', { enabled: true, canary_labels: ['canary'] });
    expect(await evaluate()).to.deep.include({ action: 'fleet_set' });
    await core.post(`/api/v1/domains/${(await core.get('/api/v1/domains')).data[0].id}/origins`, { host: 'origin.canary-replicas.example' }, 201);
    const version = (await core.post('/api/v1/config/snapshots/rebuild', undefined)).data.version;
    const steps = await Promise.all(Array.from({ length: 6 }, evaluate));
    expect(steps.filter((step) => step?.action === 'started')).to.deep.equal([{ action: 'started', version, reason: 'canaries edge-canary' }]);
    expect(steps.every((step) => step === undefined || ['started', 'waiting'].includes(step.action))).to.equal(true);
    expect(await core.db.configCanary.count()).to.equal(1);
  });
});
