import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { parseSecretKey, SecretBox, SecretKeyError } from '../../../src/features/ssl/secret-box.js';

const newKey = () => parseSecretKey(randomBytes(32).toString('base64'), 'CDN_SSL_SECRET_KEY');
const KEY_PEM = '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIK1a\n-----END PRIVATE KEY-----\n';

describe('the SSL secret box', () => {
  it('opens what it sealed, and the sealed text shows neither the value nor the key', () => {
    const key = newKey();
    const box = new SecretBox(key);
    const sealed = box.seal(KEY_PEM, 'certificate:1');
    expect(sealed).to.not.include('PRIVATE KEY');
    expect(sealed).to.not.include(key.bytes.toString('base64'));
    expect(sealed.split('.')[1]).to.equal(key.id);
    expect(box.open(sealed, 'certificate:1').toString()).to.equal(KEY_PEM);
  });

  it('seals the same value differently each time', () => {
    const box = new SecretBox(newKey());
    expect(box.seal(KEY_PEM, 'c')).to.not.equal(box.seal(KEY_PEM, 'c'));
  });

  it('refuses a value moved to another record, and an altered one', () => {
    const box = new SecretBox(newKey());
    const sealed = box.seal(KEY_PEM, 'certificate:1');
    expect(() => box.open(sealed, 'certificate:2')).to.throw(SecretKeyError, /altered, or belongs to another record/);
    const parts = sealed.split('.');
    const body = Buffer.from(parts[3], 'base64url');
    body[0] ^= 1;
    expect(() => box.open([...parts.slice(0, 3), body.toString('base64url')].join('.'), 'certificate:1')).to.throw(SecretKeyError);
    expect(() => box.open('cdnbox1.x', 'certificate:1')).to.throw(SecretKeyError, /format/);
  });

  it('opens values sealed under an earlier key while sealing new ones with the current key', () => {
    const old = newKey();
    const sealedBefore = new SecretBox(old).seal(KEY_PEM, 'c');
    const rotated = new SecretBox(newKey(), [old]);
    expect(rotated.open(sealedBefore, 'c').toString()).to.equal(KEY_PEM);
    expect(rotated.sealedWithEarlierKey(sealedBefore)).to.equal(true);
    expect(rotated.sealedWithEarlierKey(rotated.seal(KEY_PEM, 'c'))).to.equal(false);
    expect(() => new SecretBox(newKey()).open(sealedBefore, 'c')).to.throw(SecretKeyError, new RegExp(`key ${old.id}`));
  });

  it('takes only the base64 of exactly 32 bytes, and never repeats the value in its error', () => {
    for (const bad of ['', 'short', randomBytes(16).toString('base64'), randomBytes(33).toString('base64'), `${randomBytes(32).toString('hex')}`]) {
      expect(() => parseSecretKey(bad, 'CDN_SSL_SECRET_KEY'), bad).to.throw(SecretKeyError, /^CDN_SSL_SECRET_KEY must be the base64 of 32 random bytes/);
    }
    const text = randomBytes(32).toString('base64');
    expect(parseSecretKey(` ${text}\n`, 'CDN_SSL_SECRET_KEY').id).to.equal(parseSecretKey(text, 'CDN_SSL_SECRET_KEY').id);
  });
});
