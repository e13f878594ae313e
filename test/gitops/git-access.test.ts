import { expect } from 'chai';
import { loadConfig } from '../../src/config/load.js';
import { configuredCredentials, repositoryAccess } from '../../src/gitops/git-access.js';

describe('repository credentials', () => {
  it('moves the credentials a URL carries out of the repository name', () => {
    expect(repositoryAccess('https://ci:ghs_abc@github.com/acme/cdn.git', { username: 'x-access-token' })).to.deep.equal({
      name: 'https://github.com/acme/cdn.git',
      credentials: { username: 'ci', token: 'ghs_abc' },
    });
    expect(repositoryAccess('git@github.com:acme/cdn.git', { username: 'x-access-token', sshKeyFile: '/keys/id' })).to.deep.equal({
      name: 'git@github.com:acme/cdn.git',
      credentials: { username: 'x-access-token', sshKeyFile: '/keys/id' },
    });
  });

  it('refuses a URL with credentials beside a configured token, naming the repository without them', () => {
    expect(() => repositoryAccess('https://ci:ghs_abc@github.com/acme/cdn.git', { tokenFile: '/run/secrets/token' })).to.throw(
      'the repository URL https://github.com/acme/cdn.git carries credentials and CDN_GITOPS_REPO_TOKEN or CDN_GITOPS_REPO_TOKEN_FILE is set too; keep one',
    );
  });

  it('reads the credential variables, and refuses a token given both inline and as a file', () => {
    const config = loadConfig({ CDN_GITOPS_REPO_TOKEN_FILE: '/run/secrets/token', CDN_GITOPS_SSH_KEY_FILE: '/keys/id', CDN_GITOPS_KNOWN_HOSTS_FILE: '/keys/known_hosts' });
    expect(configuredCredentials(config)).to.deep.equal({ username: 'x-access-token', token: undefined, tokenFile: '/run/secrets/token', sshKeyFile: '/keys/id', knownHostsFile: '/keys/known_hosts' });
    expect(() => loadConfig({ CDN_GITOPS_REPO_TOKEN: 'ghs_abc', CDN_GITOPS_REPO_TOKEN_FILE: '/run/secrets/token' })).to.throw('CDN_GITOPS_REPO_TOKEN and CDN_GITOPS_REPO_TOKEN_FILE are both set; keep one');
  });
});
