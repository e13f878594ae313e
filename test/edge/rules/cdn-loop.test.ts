import { expect } from 'chai';
import { cdnLoopId, loopPhase, passesThrough, withCdnLoop } from '../../../src/edge/pipeline/cdn-loop.js';
import { activeConfig, fakeContext } from './request-context.js';

describe('CDN-Loop', () => {
  const id = cdnLoopId('a-clearance-secret-of-enough-length');

  it('derives one pseudonym per clearance secret, naming nothing of the software', () => {
    expect(id).to.match(/^edge-[0-9a-f]{16}$/);
    expect(cdnLoopId('a-clearance-secret-of-enough-length')).to.equal(id);
    expect(cdnLoopId('another-installation-secret-value')).not.to.equal(id);
  });

  it('counts this edge in a list, whatever the case, spacing and parameters', () => {
    expect(passesThrough(undefined, id)).to.equal(0);
    expect(passesThrough(`other-cdn, ${id}`, id)).to.equal(1);
    expect(passesThrough(`${id.toUpperCase()}; v=1 ,other, ${id}`, id)).to.equal(2);
    expect(passesThrough([id, `x, ${id}`], id)).to.equal(2);
  });

  it('appends this edge to what the client sent', () => {
    expect(withCdnLoop(undefined, id)).to.equal(id);
    expect(withCdnLoop('other-cdn', id)).to.equal(`other-cdn, ${id}`);
  });

  it('refuses with 508 a request that came through twice already, and lets others on', () => {
    const phase = loopPhase(id);
    const config = activeConfig({});
    expect(phase.run(fakeContext(config, { url: '/', headers: { 'cdn-loop': `other, ${id}` } }))).to.equal(false);
    const looped = fakeContext(config, { url: '/', headers: { 'cdn-loop': `${id}, ${id}` } });
    expect(phase.run(looped)).to.equal(true);
    expect(looped.response?.status).to.equal(508);
  });
});
