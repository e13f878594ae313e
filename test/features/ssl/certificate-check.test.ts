import { expect } from 'chai';
import { checkCertificateUpload } from '../../../src/features/ssl/certificate-check.js';
import { ValidationError } from '../../../src/http/errors.js';
import { makeTestChain, type TestChain } from '../../support/test-certificates.js';

const DAY = 86400000;
const NAMES = ['example.com', '*.example.com'];

function refusal(check: () => unknown): { field: string; detail: string } {
  try {
    check();
  } catch (error) {
    expect(error).to.be.instanceOf(ValidationError);
    const { field, detail } = error as ValidationError;
    return { field: field!, detail: detail! };
  }
  throw new Error('the upload was accepted');
}

describe('checking an uploaded certificate', function () {
  this.timeout(30000);
  let chain: TestChain;
  before(async () => {
    chain = await makeTestChain(NAMES);
  });
  const upload = (changes: Partial<{ certificate: string; private_key: string; chain: string }> = {}) => ({ certificate: chain.leaf, private_key: chain.leafKey, chain: chain.intermediate, ...changes });

  it('accepts a leaf, its key and its chain, and reads names, issuer, serial and validity', () => {
    const facts = checkCertificateUpload(upload(), ['example.com', 'www.example.com']);
    expect(facts.hostnames).to.deep.equal(NAMES);
    expect(facts.issuer).to.equal('CN=CDN Test Intermediate');
    expect(facts.serial).to.match(/^[0-9A-F]+$/);
    expect(facts.fingerprint_sha256).to.match(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(facts.not_after.getTime() - facts.not_before.getTime()).to.be.closeTo(30 * DAY, DAY);
  });

  it('accepts RSA 2048 and ECDSA P-384 keys and refuses RSA 1024, P-521 and Ed25519', async () => {
    for (const kind of ['rsa:2048', 'ec:P-384'] as const) {
      const other = await makeTestChain(NAMES, kind);
      expect(checkCertificateUpload({ certificate: other.leaf, private_key: other.leafKey, chain: other.intermediate }, NAMES).hostnames, kind).to.deep.equal(NAMES);
    }
    for (const [kind, said] of [['rsa:1024', 'RSA of 1024 bits'], ['ec:P-521', 'ECDSA on secp521r1'], ['ed25519', 'a key of type ed25519']] as const) {
      const other = await makeTestChain(NAMES, kind);
      expect(refusal(() => checkCertificateUpload({ certificate: other.leaf, private_key: other.leafKey, chain: other.intermediate }, NAMES)), kind).to.deep.equal({ field: 'private_key', detail: `is ${said}; accepted are RSA of 2048 bits or more and ECDSA P-256 or P-384` });
    }
  });

  it('refuses a key of another certificate without repeating either', () => {
    const { field, detail } = refusal(() => checkCertificateUpload(upload({ private_key: chain.otherKey }), NAMES));
    expect({ field, detail }).to.deep.equal({ field: 'private_key', detail: 'does not belong to the certificate' });
  });

  it('refuses what is not PEM, or the wrong kind of PEM block, in each field', () => {
    expect(refusal(() => checkCertificateUpload(upload({ certificate: 'hello' }), NAMES)).field).to.equal('certificate');
    expect(refusal(() => checkCertificateUpload(upload({ certificate: chain.leafKey }), NAMES))).to.deep.equal({ field: 'certificate', detail: 'holds a PRIVATE KEY block; expected only CERTIFICATE blocks' });
    expect(refusal(() => checkCertificateUpload(upload({ certificate: chain.leaf + chain.intermediate }), NAMES)).detail).to.match(/leaf certificate only/);
    // The first base64 line holds the DER's outer SEQUENCE header: zeroed, no parser can read it (a change further in may still parse).
    const unparsable = chain.leaf.replace(/(-----BEGIN CERTIFICATE-----\n)[^\n]+/, (_line, head: string) => head + 'A'.repeat(64));
    expect(refusal(() => checkCertificateUpload(upload({ certificate: unparsable }), NAMES)).detail).to.equal('is not a PEM certificate that parses');
    expect(refusal(() => checkCertificateUpload(upload({ private_key: chain.leaf }), NAMES)).field).to.equal('private_key');
    expect(refusal(() => checkCertificateUpload(upload({ private_key: 'x' }), NAMES))).to.deep.equal({ field: 'private_key', detail: 'must hold exactly one PEM private key' });
    expect(refusal(() => checkCertificateUpload(upload({ chain: chain.leafKey }), NAMES)).field).to.equal('chain');
  });

  it('refuses an expired certificate and one not yet valid', () => {
    expect(refusal(() => checkCertificateUpload(upload(), NAMES, new Date(Date.now() + 31 * DAY))).detail).to.match(/^expired at /);
    expect(refusal(() => checkCertificateUpload(upload(), NAMES, new Date(Date.now() - DAY))).detail).to.match(/^is not valid before /);
  });

  it('refuses a chain out of order or that does not link to the leaf', () => {
    expect(refusal(() => checkCertificateUpload(upload({ chain: chain.root + chain.intermediate }), NAMES)).field).to.equal('chain');
    expect(refusal(() => checkCertificateUpload(upload({ chain: chain.root }), NAMES)).detail).to.match(/did not issue the certificate/);
    expect(checkCertificateUpload(upload({ chain: chain.intermediate + chain.root }), NAMES).hostnames).to.deep.equal(NAMES);
    expect(checkCertificateUpload(upload({ chain: '' }), NAMES).hostnames).to.deep.equal(NAMES);
  });

  it('refuses a certificate that does not cover a required name, wildcards covering one label only', () => {
    expect(refusal(() => checkCertificateUpload(upload(), ['example.com', 'a.b.example.com', 'example.org']))).to.deep.equal({ field: 'certificate', detail: 'does not cover a.b.example.com, example.org' });
  });
});
