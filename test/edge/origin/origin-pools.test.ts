import { expect } from 'chai';
import { MAX_TLS_NAMES, OriginPools } from '../../../src/edge/origin/origin-pools.js';
import { origin } from './support.js';

describe('edge origin pools', () => {
  it('keeps a pool for each of the MAX_TLS_NAMES most recently used TLS names of an https origin addressed by IP, closing the one used least recently past it', () => {
    const pools = new OriginPools();
    const byIp = origin({ port: 8443, scheme: 'https', host: '192.0.2.10' });
    const kept = pools.poolFor(byIp, 1000, 'kept.example');
    const dropped = pools.poolFor(byIp, 1000, 'dropped.example');
    for (let index = 0; index < MAX_TLS_NAMES - 2; index++) pools.poolFor(byIp, 1000, `name-${index}.example`);
    expect(pools.poolFor(byIp, 1000, 'kept.example')).to.equal(kept);
    pools.poolFor(byIp, 1000, 'one-more.example');
    expect(dropped.closed).to.equal(true);
    expect(kept.closed).to.equal(false);
    expect(pools.poolFor(byIp, 1000, 'kept.example')).to.equal(kept);
    expect(pools.poolFor(byIp, 1000, 'dropped.example')).to.not.equal(dropped);
    pools.close();
  });

  it('gives a plain http origin one pool, replaced (the old one closed) when its address or limits change', () => {
    const pools = new OriginPools();
    const plain = origin({ port: 8080 });
    const first = pools.poolFor(plain, 1000, undefined);
    expect(pools.poolFor(plain, 1000, undefined)).to.equal(first);
    const moved = pools.poolFor({ ...plain, port: 8081 }, 1000, undefined);
    expect(moved).to.not.equal(first);
    expect(first.closed).to.equal(true);
    pools.close();
  });
});
