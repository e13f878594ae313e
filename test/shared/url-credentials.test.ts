import { expect } from 'chai';
import { urlCredentials, withoutUrlCredentials } from '../../src/shared/url-credentials.js';
import { URL_CREDENTIAL_CASES as CASES } from '../support/url-credential-cases.js';

describe('credentials in URLs', () => {
  it('removes them from every URL of a text, keeping an SSH login and leaving scp-like addresses and paths alone', () => {
    for (const [input, shown] of CASES) expect(withoutUrlCredentials(input), input).to.equal(shown);
  });

  it('reads the user name and password a URL carries, percent-decoded, and none from an SSH login', () => {
    expect(urlCredentials('https://x-access-token:ghs_secret@github.com/acme/cdn.git')).to.deep.equal({ username: 'x-access-token', password: 'ghs_secret' });
    expect(urlCredentials('https://ghp_tokenonly@github.com/acme/cdn.git')).to.deep.equal({ username: 'ghp_tokenonly', password: '' });
    expect(urlCredentials('http://user:p%40ss:word@127.0.0.1:8080/repo.git')).to.deep.equal({ username: 'user', password: 'p@ss:word' });
    expect(urlCredentials('ssh://git@host.example/repo.git')).to.equal(undefined);
    expect(urlCredentials('https://github.com/acme/cdn.git')).to.equal(undefined);
    expect(urlCredentials('git@github.com:acme/cdn.git')).to.equal(undefined);
  });
});
