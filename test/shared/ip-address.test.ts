import { expect } from 'chai';
import { canonicalIp, ipv6Network64 } from '../../src/shared/ip-address.js';

describe('canonical IP addresses', () => {
  it('gives one text per address and nothing for text that is not one', () => {
    expect(canonicalIp('192.0.2.7')).to.equal('192.0.2.7');
    expect(canonicalIp('2001:DB8:0:0::1')).to.equal('2001:db8::1');
    expect(canonicalIp('::ffff:192.0.2.7')).to.equal('192.0.2.7');
    expect(canonicalIp('not an address')).to.equal(undefined);
  });

  it('names the /64 of an IPv6 address', () => {
    expect(ipv6Network64('2001:db8:1:2::9')).to.equal('2001:db8:1:2::/64');
  });
});
