import { expect } from 'chai';
import { bodyHash, canonicalString, signature, signaturesMatch, signedHeaders, signingKey } from '../../src/shared/signing.js';

describe('edge request signing', () => {
  it('produces the worked example of docs/edge-protocol.md', () => {
    const body = '{"edge_id":"edge-fra-1"}';
    const key = signingKey('cdnedge_example-token');
    expect(key).to.equal('a85b433687c0aae80969e6bdb24d394495c03180f63feb11430a3dff1e3c8f16');
    expect(bodyHash(body)).to.equal('d22cc802ea5a7ad0fba5c666dff52b58b2e893c7fa47105ce08a7109216c48c2');
    const canonical = canonicalString('post', '/api/v1/edge/heartbeat', 1795350000, '6f1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e', body);
    expect(canonical.split('\n')).to.deep.equal(['POST', '/api/v1/edge/heartbeat', '1795350000', '6f1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e', bodyHash(body)]);
    expect(signature(key, canonical)).to.equal('f3e87fc907a8c98071fb2b7f92a4ee6ca02511f2b676999b821ae7b2a496baf6');
  });

  it('signs the query string and the empty body too', () => {
    const a = signedHeaders({ token: 't', edgeId: 'e', method: 'GET', pathWithQuery: '/api/v1/edge/config?if_version=3', now: 1, nonce: 'n'.repeat(16) });
    const b = signedHeaders({ token: 't', edgeId: 'e', method: 'GET', pathWithQuery: '/api/v1/edge/config?if_version=4', now: 1, nonce: 'n'.repeat(16) });
    expect(a['x-cdn-signature']).to.not.equal(b['x-cdn-signature']);
    expect(bodyHash('')).to.equal('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('compares signatures in constant time and refuses malformed ones', () => {
    const good = signature('k', 'x');
    expect(signaturesMatch(good, good)).to.equal(true);
    expect(signaturesMatch(good, good.slice(0, -2))).to.equal(false);
    expect(signaturesMatch(good, 'zz')).to.equal(false);
  });
});
