import { expect } from 'chai';
import { canonicalIp, ipv6Network64 } from '../../src/shared/ip-address.js';

describe('canonical IP addresses', () => {
  it('gives one text per address and nothing for text that is not one', () => {
    expect(canonicalIp('192.0.2.7')).to.equal('192.0.2.7');
    expect(canonicalIp('2001:DB8:0:0::1')).to.equal('2001:db8::1');
    expect(canonicalIp('::ffff:192.0.2.7')).to.equal('192.0.2.7');
    expect(canonicalIp('not an address')).to.equal(undefined);
    expect(canonicalIp('0.0.0.0')).to.equal('0.0.0.0');
    expect(canonicalIp('255.255.255.255')).to.equal('255.255.255.255');
    for (const text of ['256.0.0.1', '1.2.3.4.5', '1..2.3', '1.2.3.4 ', ' 1.2.3.4', '1.2.3.-4', '']) expect(canonicalIp(text), text).to.equal(undefined);
    // A leading zero is not plain dotted decimal: ipaddr.js parses it, an octet with a leading zero
    // as octal (010 is 8), and the address is written canonically.
    expect(canonicalIp('192.0.2.07')).to.equal('192.0.2.7');
    expect(canonicalIp('192.0.2.010')).to.equal('192.0.2.8');
  });

  it('names the /64 of an IPv6 address', () => {
    expect(ipv6Network64('2001:db8:1:2::9')).to.equal('2001:db8:1:2::/64');
  });
});
