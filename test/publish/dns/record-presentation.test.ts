import { expect } from 'chai';
import { presentationContent, recordOwner, txtContent } from '../../../src/publish/dns/record-presentation.js';

describe('record presentation', () => {
  it('makes hostnames absolute in CNAME, NS, PTR, MX and SRV content', () => {
    expect(presentationContent('CNAME', 'target.example.net')).to.equal('target.example.net.');
    expect(presentationContent('NS', 'ns.example.net')).to.equal('ns.example.net.');
    expect(presentationContent('PTR', 'host.example.net')).to.equal('host.example.net.');
    expect(presentationContent('MX', '10 mail.example.net')).to.equal('10 mail.example.net.');
    expect(presentationContent('SRV', '10 5 5060 sip.example.net')).to.equal('10 5 5060 sip.example.net.');
    expect(presentationContent('SRV', '0 0 0 .')).to.equal('0 0 0 .');
    expect(presentationContent('A', '192.0.2.1')).to.equal('192.0.2.1');
  });

  it('names records absolutely, "@" being the apex', () => {
    expect(recordOwner('@', 'example.com')).to.equal('example.com.');
    expect(recordOwner('*.cdn', 'example.com')).to.equal('*.cdn.example.com.');
  });

  it('quotes TXT text, escaping quotes, backslashes and bytes outside printable ASCII', () => {
    expect(txtContent('v=spf1 -all')).to.equal('"v=spf1 -all"');
    expect(txtContent('say "hi" \\ bye')).to.equal('"say \\"hi\\" \\\\ bye"');
    expect(txtContent('é\t')).to.equal('"\\195\\169\\009"');
    expect(txtContent('')).to.equal('""');
  });

  it('cuts TXT text into strings of at most 255 bytes, never inside a character', () => {
    const chunks = txtContent(`${'a'.repeat(254)}é${'b'.repeat(10)}`).split('" "');
    expect(chunks).to.have.length(2);
    expect(chunks[0]).to.equal(`"${'a'.repeat(254)}`);
    expect(chunks[1]).to.equal(`\\195\\169${'b'.repeat(10)}"`);
  });
});
