import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { accountKeyContext, resealAccountKeys } from '../../../src/features/ssl/acme/acme-account.js';
import { secretBoxOf } from '../../../src/features/ssl/key-storage.js';
import { TestCore } from '../../support/core.js';

// The ACME account key follows a CDN_SSL_SECRET_KEY rotation like the certificates' keys (docs/ssl.md).
describe('ACME account keys at rest', function () {
  this.timeout(30000);
  let core: TestCore;
  const oldKey = randomBytes(32).toString('base64');
  const newKey = randomBytes(32).toString('base64');
  const directory = 'https://acme.invalid/dir';

  before(async () => {
    core = await TestCore.start();
    const box = secretBoxOf({ sslSecretKey: oldKey, sslSecretKeyPrevious: undefined })!;
    await core.db.acmeAccount.create({ data: { directory_url: directory, key_encrypted: box.seal('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n', accountKeyContext(directory)) } });
  });
  after(async () => {
    await core?.stop();
  });

  it('are re-sealed with the current key once, still opening to the same key', async () => {
    const rotated = secretBoxOf({ sslSecretKey: newKey, sslSecretKeyPrevious: oldKey })!;
    expect(await resealAccountKeys(core.db, rotated)).to.deep.equal({ resealed: 1, unreadable: [] });
    expect(await resealAccountKeys(core.db, rotated)).to.deep.equal({ resealed: 0, unreadable: [] });
    const row = await core.db.acmeAccount.findUniqueOrThrow({ where: { directory_url: directory } });
    expect(row.key_encrypted.startsWith(`cdnbox1.${rotated.keyId}.`)).to.equal(true);
    expect(secretBoxOf({ sslSecretKey: newKey, sslSecretKeyPrevious: undefined })!.open(row.key_encrypted, accountKeyContext(directory)).toString()).to.include('PRIVATE KEY');
  });

  it('are named when no configured key opens them', async () => {
    const stranger = secretBoxOf({ sslSecretKey: randomBytes(32).toString('base64'), sslSecretKeyPrevious: undefined })!;
    expect(await resealAccountKeys(core.db, stranger)).to.deep.equal({ resealed: 0, unreadable: [directory] });
  });
});
