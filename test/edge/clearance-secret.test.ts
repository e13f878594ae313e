import { expect } from 'chai';
import { clearanceSecretProblem } from '../../src/edge/clearance-secret.js';

describe('the edge clearance secret rule', () => {
  it('refuses a secret shorter than 32 characters in any profile', () => {
    expect(clearanceSecretProblem({ env: 'development', edgeClearanceSecret: 'short' })).to.equal('CDN_EDGE_CLEARANCE_SECRET must be at least 32 characters');
    expect(clearanceSecretProblem({ env: 'production', edgeClearanceSecret: 'x'.repeat(31) })).to.equal('CDN_EDGE_CLEARANCE_SECRET must be at least 32 characters');
  });

  it('refuses no secret in production only (a development edge makes its own)', () => {
    expect(clearanceSecretProblem({ env: 'production', edgeClearanceSecret: undefined })).to.equal('CDN_EDGE_CLEARANCE_SECRET must be set in production (the same value on every edge)');
    expect(clearanceSecretProblem({ env: 'development', edgeClearanceSecret: undefined })).to.equal(undefined);
  });

  it('accepts a secret of 32 characters or more', () => {
    expect(clearanceSecretProblem({ env: 'production', edgeClearanceSecret: 'x'.repeat(32) })).to.equal(undefined);
  });
});
