import { expect } from 'chai';
import { secretVariable } from '../../src/gitops/export.js';

describe('export (pure)', () => {
  it('names a distinct secret variable for every apex, hyphens and dots told apart', () => {
    expect(secretVariable('shop.example')).to.equal('ORIGIN_SHIELD_SECRET_SHOP_EXAMPLE');
    expect(secretVariable('a-b.example')).to.not.equal(secretVariable('a.b.example'));
    expect(secretVariable('xn--bcher-kva.example')).to.match(/^ORIGIN_SHIELD_SECRET_[A-Z0-9_]+$/);
  });
});
